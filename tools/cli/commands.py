"""The whole CLI: its parser (flags generated from the request models), the commands, what they print.

An in-process command runs here; so does a command the daemon runs for a CLI (tools/cli/forward.py
sends it the arguments, tools/cli/daemon/server.py runs main() on them with its output sent back).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.protocol import EXIT_CODES, KernelEvalError
from tools import background
from tools import cli as cli_package
from tools.catalogue import TOOLS, ToolEntry
from tools.cli.args import add_model_arguments, model_from_args
from tools.cli.dispatch import add_dispatch_arguments, call_tool
from tools.models.accuracy import RunAccuracyResult
from tools.models.bench import BenchmarkResult
from tools.models.compare import CompareFilesRequest, CompareReport
from tools.models.compile import CompileKernelResult
from tools.models.diagnosis import ExplainResult, FixResult
from tools.models.mutate import MutateResult

EXIT_OK, EXIT_INTERRUPTED = 0, 130
EXIT_NEGATIVE, EXIT_USAGE, EXIT_INTERNAL = EXIT_CODES["candidate"], EXIT_CODES["caller"], EXIT_CODES["server"]
CLI_DESCRIPTION = (cli_package.__doc__ or "").splitlines()[0]


def _print_report(report: CompareReport) -> None:
    print(report.summary)
    if len(report.outputs) > 1:
        for result in report.outputs:
            print(f"  {result.summary}")
    for warning in report.warnings:
        print(f"  warning: {warning}")


def _cmd_compare(ns: argparse.Namespace) -> int:
    from tools.offline_compare import compare_files

    request = model_from_args(CompareFilesRequest, ns)
    report = compare_files(request)
    if ns.json:
        print(report.model_dump_json(indent=2))
    else:
        _print_report(report)
    return EXIT_OK if report.passed else EXIT_NEGATIVE


def _print_error(error) -> None:
    if error is None:
        return
    where = (
        f"{error.file}:{error.line}" + (f":{error.column}" if error.column else "") if error.line else error.file or ""
    )
    print(f"  error ({error.phase}): {error.type}: {error.message}".rstrip())
    if where:
        print(f"    at {where}")
    if error.source_line:
        print(f"    | {error.source_line}")
    if error.hint:
        print(f"  hint: {error.hint}")


def _overrun_text(overruns) -> str:
    """Where stores went past output allocations, e.g. '96 byte(s) past the end of a (1000,) output'."""
    parts = []
    for w in overruns:
        sides = [
            f"{n} byte(s) {side}"
            for n, side in ((w.bytes_before, "before the start"), (w.bytes_after, "past the end"))
            if n
        ]
        parts.append(f"{' and '.join(sides)} of a {tuple(w.shape)} output")
    return "; ".join(parts)


def _seed_text(result: RunAccuracyResult, seed) -> str:
    """A seed's line: the comparator's summary; where its values pass but the run fails all the same
    (a store past an output's end, determinism='require'), it says so instead of a bare PASS."""
    if not seed.passed or result.verdict == "pass" or not all(s.passed for s in result.seeds):
        return seed.summary
    overruns = [w for w in result.checks.out_of_bounds_writes if w.seed == seed.seed]
    if overruns:
        return f"FAIL out_of_bounds_write: {_overrun_text(overruns)}; the values alone: {seed.summary}"
    return f"the values alone: {seed.summary} (the run fails all the same: see the first line)"


def _print_command_hint(next_step: str | None, run_id: str | None) -> None:
    """The kernel-eval command of the tool call a next step names (`call explain_failure(run_id) ...` ->
    `kernel-eval explain r-...`): next steps name MCP calls, the same text for both front ends."""
    match = re.search(r"\b(\w+)\((run_id[^)]*)\)", next_step or "")
    if match is None or run_id is None or match.group(1) not in TOOLS:
        return
    command = TOOLS[match.group(1)].command
    if "run_id" not in command.positional:
        return
    flags = " --verify" if "verify=true" in match.group(2).replace(" ", "").lower() else ""
    print(f"  on the command line: kernel-eval {command.name} {run_id}{flags}")


def _print_run(result: RunAccuracyResult) -> None:
    print(result.summary)
    for seed in result.seeds:
        print(f"  seed {seed.seed}: {_seed_text(result, seed)}")
    _print_error(result.error)
    for warning in result.warnings:
        print(f"  warning: {warning}")
    print(f"  run_id {result.run_id} ({result.timings.total_s:.2f} s); next: {result.next_step}")
    _print_command_hint(result.next_step, result.run_id)


def _print_compile(result: CompileKernelResult) -> None:
    print(result.summary)
    for kernel in result.kernels:
        stats = kernel.resources()
        print(
            f"  kernel {kernel.name} [{kernel.target}]: {'compiled' if kernel.compiled else 'FAILED'}"
            + (f"; {stats}" if stats else "")
        )
    _print_error(result.error)
    for warning in result.warnings:
        print(f"  warning: {warning}")


def _print_explain(result: ExplainResult) -> None:
    print(result.summary)
    primary = result.diagnoses[0] if result.diagnoses else None
    if primary is not None and primary.location is not None:
        print(f"  where: {primary.location.description}")
    for d in result.diagnoses[1:4]:
        print(f"  also: {d.pattern} ({d.confidence:.2f}, {d.tested}): {d.summary}")
    for outcome in result.decisive_experiments():
        print(f"  experiment {outcome.id}: {outcome.finding}")
        for trial in outcome.trials:
            metrics = ", ".join(
                f"{k} {float(v):.3g}" for k, v in (("MERE", trial.mere), ("MARE", trial.mare)) if v is not None
            )
            state = "pass" if trial.passed else "fail" if trial.ran else f"not run: {trial.note}"
            print(
                f"    - {trial.label}: {state}"
                + (f", {metrics}" if metrics else "")
                + (f", {trial.nonfinite} NaN/Inf" if trial.nonfinite else "")
            )
    if result.fingerprint and result.fingerprint_tells():
        print(
            "  precision fingerprint: the candidate's output against goldens that emulate one precision "
            "choice each, as MERE (mean relative error; 0: the candidate computes exactly that), closest first"
        )
        for p in result.fingerprint[:3]:
            print(f"    - {p.describe()}")
    if result.heatmap:
        from tools.diagnosis import HEATMAP_NAME
        from tools.services import services

        print(f"  heatmap: {services().runs.path(result.run_id) / HEATMAP_NAME} ({result.heatmap})")
    elif result.error_map and result.verdict != "pass":
        print("  where the errors are: " + result.error_map.replace("\n", "\n    "))
    print(f"  next: {result.next_step}")
    _print_command_hint(result.next_step, result.run_id)


def _print_fix(result: FixResult) -> None:
    print(result.summary)
    for fix in result.fixes:
        state = (
            "verified" if fix.verified else (f"not verified: {fix.verification.verdict}" if fix.verification else "")
        )
        label = f"({state})" if state else ""
        print(f"\n## {fix.fix}: {fix.title} {label}\n  why: {fix.why}\n  triton: {fix.guidance['triton']}")
        if fix.verification:
            print(f"  measured: {fix.verification.describe()}")
        if fix.patch:
            print(fix.patch)


def _list_operators(ns: argparse.Namespace) -> int | None:
    if not ns.list_operators:
        return None
    from tools.mutate.operators import OPERATORS

    for op in OPERATORS.values():
        print(f"{op.id:22} {op.family:13} {op.description}")
    return EXIT_OK


def _print_mutate(result: MutateResult) -> None:
    print(result.summary)
    for op, (killed, total) in result.by_operator.items():
        print(f"  {op:22} {killed}/{total} caught")
    for m in result.mutants:
        if not m.caught:
            print(
                f"  survivor {m.operator} #{m.site}"
                + (f" (caught with {m.caught_with})" if m.caught_with else "")
                + (" (does not compile for a GPU: not counted)" if m.gpu_compile_error else "")
                + f"\n{m.diff}"
            )
    for line in result.advice:
        print(f"  advice: {line}")


def _cmd_batch(ns: argparse.Namespace) -> int:
    from tools.batch import run_batch
    from tools.cli.batch import InOrder, ProgressBar, print_table, read_manifest

    requests = read_manifest(ns.manifest)
    bar = ProgressBar(len(requests))
    in_order = InOrder(lambda item: print(item.model_dump_json(), flush=True)) if ns.json else None

    def on_item(item) -> None:
        bar.update(item)
        if in_order is not None:
            in_order.add(item)

    timing = None
    if ns.benchmark:
        from tools.models.bench import BenchmarkOptions

        timing = BenchmarkOptions(repetitions=ns.repetitions) if ns.repetitions else BenchmarkOptions()
    report = run_batch(requests, ns.engine, ray_address=ns.ray_address, on_item=on_item, benchmark=timing)
    bar.close()
    if not ns.json:
        print_table(report, requests)
    return EXIT_OK if report.items and all(i.verdict == "pass" for i in report.items) else EXIT_NEGATIVE


def _print_bench(result: BenchmarkResult) -> None:
    print(result.summary)
    if result.method:
        print(f"  method: {result.method}")
    for name, timing in (("reference", result.reference), ("candidate", result.candidate)):
        if timing is not None:
            print(
                f"  {name}: median {timing.median_ms * 1e3:.4g} us, IQR {timing.iqr_ms * 1e3:.3g} us, "
                f"CV {timing.cv:.2g}, n {timing.n}"
            )
    for label, roof in (("roofline", result.roofline), ("estimate", result.estimate)):
        if roof is not None:
            bound = f"{roof.min_time_ms * 1e3:.4g} us" if roof.min_time_ms is not None else "unknown"
            print(
                f"  {label} on {roof.device}: {roof.bytes} bytes, {roof.flops} FLOPs, at least {bound} "
                f"({roof.peak_gbps} GB/s, {roof.peak_tflops} TFLOP/s {roof.dtype or ''})".rstrip()
            )
            if roof.candidate and roof.candidate.fraction_of_roofline is not None:
                print(
                    f"    candidate: {roof.candidate.achieved_gbps:.4g} GB/s, "
                    f"{roof.candidate.fraction_of_roofline:.0%} of the roofline"
                )
    for flag in result.flags:
        print(f"  flag {flag.id}: {flag.message}")
    _print_error(result.error)
    for warning in result.warnings:
        print(f"  warning: {warning}")
    print(f"  next: {result.next_step}")


def _batch_arguments(batch: argparse.ArgumentParser) -> None:
    batch.description = (
        "Judge every request of a manifest (one run_accuracy request JSON per line, the fields of "
        "`kernel-eval run --json`'s request) on every sandbox slot and GPU of this machine, or on a Ray cluster. "
        "Each result is what `kernel-eval run` gives that request alone. Exit status: 0 when every request "
        "passes, 1 otherwise, 2 for a bad manifest."
    )
    batch.add_argument("manifest", metavar="MANIFEST.jsonl", help="one request JSON object per line")
    batch.add_argument("--engine", choices=["local", "ray"], default="local", help="local (default) or ray")
    batch.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="a running Ray cluster (host:port); default: a new local one",
    )
    batch.add_argument(
        "--benchmark",
        action="store_true",
        help="also time every passing candidate against its reference (benchmark_kernel's defaults; "
        "one timed job per GPU at a time; on cpu a roofline estimate only)",
    )
    batch.add_argument(
        "--repetitions", type=int, default=None, metavar="N", help="with --benchmark: timed repetitions (default 100)"
    )


def _passed(result, ns: argparse.Namespace) -> bool:
    """Exit 0 on a passing verdict, and for a tool whose result has no verdict (nothing failed)."""
    verdict = getattr(result, "verdict", None)
    return verdict is None or verdict in ("pass", "ok")


def _print_summary(result) -> None:
    print(result.summary)


@dataclass(frozen=True)
class CommandOutput:
    """How a tool's command prints its result and which exit status it gives (0 when `succeeded`, else 1)."""

    text: Callable[[Any], None] = _print_summary
    succeeded: Callable[[Any, argparse.Namespace], bool] = _passed
    #: Answers the command without calling the tool when it returns an exit status (e.g. --list-operators).
    before: Callable[[argparse.Namespace], int | None] | None = None
    arguments: Callable[[argparse.ArgumentParser], None] | None = None  # flags beyond the request's
    #: The whole command, for one whose flags are not the request's (catalogue: flags_from_request=False).
    handler: Callable[[argparse.Namespace], int] | None = None


def _mutate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--list-operators", action="store_true", help="list the mutation operators and exit")


#: By tool name (tools/catalogue.py); a tool without an entry prints its summary and exits 0 on pass / ok or
#: when its result has no verdict.
OUTPUTS: dict[str, CommandOutput] = {
    "compile_kernel": CommandOutput(_print_compile, lambda r, ns: r.ok),
    "run_accuracy": CommandOutput(_print_run),
    "run_accuracy_batch": CommandOutput(arguments=_batch_arguments, handler=_cmd_batch),
    "benchmark_kernel": CommandOutput(_print_bench),
    "explain_failure": CommandOutput(_print_explain, lambda r, ns: True),
    "suggest_fix": CommandOutput(
        _print_fix, lambda r, ns: any(f.verified for f in r.fixes) or not getattr(ns, "verify", False)
    ),
    "mutate": CommandOutput(
        _print_mutate, lambda r, ns: r.survived == 0, before=_list_operators, arguments=_mutate_arguments
    ),
}


def _cmd_tool(ns: argparse.Namespace) -> int:
    """A tool's command: its request from the flags, the tool (through the daemon where served), its output."""
    entry = TOOLS[ns.tool]
    output = OUTPUTS.get(entry.name, CommandOutput())
    if output.before is not None and (answered := output.before(ns)) is not None:
        return answered
    result = call_tool(entry.name, model_from_args(entry.request_model, ns), entry.result_model, ns)
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
        output.text(result)
    return EXIT_OK if output.succeeded(result, ns) else EXIT_NEGATIVE


def _add_tool_command(sub, entry: ToolEntry) -> None:
    output = OUTPUTS.get(entry.name, CommandOutput())
    command = entry.command
    parser = sub.add_parser(command.name, help=command.help)
    if command.flags_from_request:
        parser.description = entry.request_model.__doc__
        add_model_arguments(
            parser,
            entry.request_model,
            aliases={"run_id": ["--run"]} if command.run_alias else None,
            positional=command.positional,
        )
    if output.arguments is not None:
        output.arguments(parser)
    if command.served:
        add_dispatch_arguments(parser)
    json_help = (
        "one result JSON per line, in input order"
        if output.handler
        else "print the full JSON result (as the MCP tool returns)"
    )
    parser.add_argument("--json", action="store_true", help=json_help)
    parser.set_defaults(handler=output.handler or _cmd_tool, tool=entry.name)


def _cmd_serve(ns: argparse.Namespace) -> int:
    if ns.daemon or ns.stop or ns.status:
        from tools.cli.daemon_commands import daemon_command

        return daemon_command(ns)
    from tools.cli.serve_args import argv_of

    # The MCP server is a process of its own (mcp_server sits above the tools: never imported here),
    # found where this package is, never in the working directory (-P), as the in-process one was.
    root = str(Path(__file__).resolve().parents[2])
    env = os.environ | {"PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *safe_path, "-m", "mcp_server", *argv_of(ns)], env)


def _cmd_thresholds(ns: argparse.Namespace) -> int:
    from tools.thresholds import table

    print(json.dumps(table(), indent=2))
    return EXIT_OK


def build_parser(columns: int | None = None) -> argparse.ArgumentParser:
    """`columns`: the terminal width usage and help are formatted to (default: this process's terminal's)."""

    class Formatter(argparse.HelpFormatter):
        def __init__(self, prog: str, **kwargs) -> None:
            if columns is not None:  # as argparse itself does with the terminal's width
                kwargs["width"] = columns - 2
            super().__init__(prog, **kwargs)

    class Parser(argparse.ArgumentParser):
        def __init__(self, *args, **kwargs) -> None:
            kwargs.setdefault("formatter_class", Formatter)
            super().__init__(*args, **kwargs)

    parser = Parser(prog="kernel-eval", description=CLI_DESCRIPTION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    compare = sub.add_parser(
        "compare",
        help="judge dumped tensors (.npy/.npz/.pt) against a golden, offline",
        description="Judge a candidate's dumped outputs against a golden (and CPU control) file.",
    )
    add_model_arguments(compare, CompareFilesRequest)
    compare.add_argument("--json", action="store_true", help="print the full JSON report")
    compare.set_defaults(handler=_cmd_compare)

    for entry in TOOLS.values():
        _add_tool_command(sub, entry)

    serve = sub.add_parser(
        "serve", help="start the MCP server (stdio, or streamable HTTP at /mcp), or the CLI's warm daemon"
    )
    from tools.cli.daemon_commands import add_daemon_arguments
    from tools.cli.serve_args import add_arguments as add_serve_arguments

    add_serve_arguments(serve)
    add_daemon_arguments(serve)
    serve.set_defaults(handler=_cmd_serve)

    thresholds = sub.add_parser("thresholds", help="print every threshold table as JSON")
    thresholds.set_defaults(handler=_cmd_thresholds)
    for command_parser in sub.choices.values():  # an unknown flag is reported with its command's usage
        command_parser.set_defaults(command_parser=command_parser)
    return parser


@functools.lru_cache(maxsize=8)
def _parser(columns: int | None) -> argparse.ArgumentParser:
    """Built once per width: ~2 ms each time otherwise (argparse looks up translations for every help
    text), which a daemon serving a warm call would pay every call. Parsing leaves a parser unchanged."""
    return build_parser(columns)


def main(argv: list[str] | None = None, local_reason: str | None = None, columns: int | None = None) -> int:
    """`local_reason`: why a command the daemon could serve runs in this process (for --verbose)."""
    parser = _parser(columns)
    try:
        ns, unknown = parser.parse_known_args(argv)
        if unknown:  # parse_args would print the top-level usage, which does not say what the command takes
            ns.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse already printed the problem
        return EXIT_USAGE if exc.code else EXIT_OK
    ns.local_reason = local_reason
    try:
        try:
            return ns.handler(ns)
        finally:
            background.wait()  # the run's tensors, before this process's thread pools shut down
    except KernelEvalError as exc:  # the one root: its blame picks the exit code (2 caller, 3 server)
        print(f"kernel-eval {ns.command}: error: {exc.client_text()}", file=sys.stderr)
        return EXIT_CODES[exc.blame]
    except KeyboardInterrupt:
        print(f"kernel-eval {ns.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
