"""`kernel-eval serve --daemon | --status | --stop`: the CLI's warm daemon, by hand."""

from __future__ import annotations

import argparse
import sys


def add_daemon_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the CLI's warm daemon (not MCP: it serves kernel-eval commands)")
    modes = group.add_mutually_exclusive_group()
    modes.add_argument(
        "--daemon", action="store_true", help="start this home's daemon in the background (if none runs) and return"
    )
    modes.add_argument("--status", action="store_true", help="print the daemon's status as JSON (exit 1: none runs)")
    modes.add_argument(
        "--stop",
        action="store_true",
        help="stop this home's daemons (one per configuration, e.g. per PATH; their running calls are cancelled)",
    )
    group.add_argument(
        "--idle-timeout",
        type=float,
        metavar="S",
        help="with --daemon: exit after S seconds without a call (default 900; also $KERNEL_EVAL_DAEMON_IDLE_S)",
    )


def daemon_command(ns: argparse.Namespace) -> int:
    from tools.cli.daemon import client, connection
    from tools.cli.daemon.location import DaemonUnavailable, daemon_paths

    if ns.idle_timeout is not None and not ns.idle_timeout > 0:
        print("kernel-eval serve: error: --idle-timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    try:
        paths = daemon_paths()
        if ns.stop:
            return _stop_all(client.stop_all(paths), paths)
        if ns.daemon:
            reached = connection.connect(paths, autostart=True, idle_timeout_s=ns.idle_timeout)
            reached.sock.close()
            if reached.replaced_stale:
                print("kernel-eval serve: replaced a stale socket (its daemon was gone)", file=sys.stderr)
            if not reached.started and ns.idle_timeout is not None:
                print("kernel-eval serve: a daemon was already running; --idle-timeout left as it was", file=sys.stderr)
        status = client.status(paths)
    except DaemonUnavailable as exc:
        print(f"kernel-eval serve: error: {exc}", file=sys.stderr)
        return 2
    print(status.model_dump_json(indent=2))
    return 0 if status.running else 1


def _stop_all(outcomes: list, paths) -> int:
    stopped = [pid for _, pid, _ in outcomes if pid]
    for key, _, why in outcomes:
        if why:
            print(f"kernel-eval serve: could not stop the daemon {key}: {why}", file=sys.stderr)
    if stopped:
        print(f"stopped {len(stopped)} daemon(s) of {paths.home} (pid {', '.join(map(str, stopped))})")
    else:
        print(f"no daemon was running (in {paths.directory})")
    return 2 if any(why for _, _, why in outcomes) else 0
