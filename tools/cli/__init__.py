"""`kernel-eval`: the tools on the command line, printing the same JSON the MCP tools return.

Exit status: 0 pass / ok, 1 a negative verdict, 2 a usage error (bad flags, unreadable files),
3 an internal error of the daemon (it keeps running), 130 interrupted, 141 the output's reader went away.

run, compile, explain, fix and mutate go to this home's warm daemon (tools/cli/daemon/), started on
first use, unless --no-daemon or $KERNEL_EVAL_NO_DAEMON=1: forward.py sends it the arguments as
typed, without importing pydantic or torch, and the daemon runs them through commands.py, the
same code an in-process command runs; the output is the same either way.
"""

from __future__ import annotations

import os
import sys

#: The exit status when the output's reader stops reading (`kernel-eval explain ... | head`): 128 + SIGPIPE.
EXIT_BROKEN_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader went away: no traceback, and none when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: list[str] | None) -> int:
    from tools.cli.forward import RunHere, forward

    args = sys.argv[1:] if argv is None else list(argv)
    outcome = forward(args)
    if not isinstance(outcome, RunHere):
        return outcome
    from tools.cli.commands import main as run_here

    return run_here(args, local_reason=outcome.reason)


def __getattr__(name: str):
    if name == "build_parser":  # the full CLI's parser (docs, tests): loaded only when asked for
        from tools.cli.commands import build_parser

        return build_parser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())
