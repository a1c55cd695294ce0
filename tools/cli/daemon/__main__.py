"""`python -m tools.cli.daemon`: run a daemon in the foreground (the CLI starts it this way, detached)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from tools.cli.daemon.location import DaemonUnavailable, daemon_paths
from tools.cli.daemon.server import DEFAULT_IDLE_TIMEOUT_S, Daemon


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.cli.daemon", description=__doc__)
    parser.add_argument("--code", help="the code version the starting CLI expects; refuse to start as another")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT_S, metavar="S")
    ns = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    paths = daemon_paths()
    if ns.code and ns.code != paths.code:
        print(f"refusing to start: this code is version {paths.code}, the CLI expected {ns.code}", file=sys.stderr)
        return 3
    daemon = Daemon(paths, idle_timeout_s=ns.idle_timeout)
    try:
        daemon.bind()
    except (DaemonUnavailable, OSError) as exc:
        print(f"cannot listen on {paths.socket}: {exc}", file=sys.stderr)
        return 3
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: daemon.request_stop())
    logging.getLogger("kernel_eval.daemon").info(
        "serving %s (home %s, idle timeout %.0f s)", paths.socket, paths.home, ns.idle_timeout
    )
    daemon.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
