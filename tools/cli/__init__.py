"""`kernel-eval`: the tools on the command line, printing the same JSON the MCP tools return.

Exit status: 0 pass / ok, 1 a negative verdict, 2 a usage error (bad flags, unreadable files).
"""

from __future__ import annotations

import argparse
import json
import sys

from tools.cli.args import UsageError, add_model_arguments, model_from_args
from tools.compare import CompareInputError
from tools.models.compare import CompareFilesRequest, CompareReport
from tools.tensor_files import TensorFileError

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2


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


def _cmd_thresholds(ns: argparse.Namespace) -> int:
    from tools.thresholds import table

    print(json.dumps(table(), indent=2))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kernel-eval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    compare = sub.add_parser(
        "compare",
        help="judge dumped tensors (.npy/.npz/.pt) against a golden, offline",
        description="Judge a candidate's dumped outputs against a golden (and CPU control) file.",
    )
    add_model_arguments(compare, CompareFilesRequest)
    compare.add_argument("--json", action="store_true", help="print the full JSON report")
    compare.set_defaults(handler=_cmd_compare)

    thresholds = sub.add_parser("thresholds", help="print every threshold table as JSON")
    thresholds.set_defaults(handler=_cmd_thresholds)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the problem
        return EXIT_USAGE if exc.code else EXIT_OK
    try:
        return ns.handler(ns)
    except (UsageError, TensorFileError, CompareInputError) as exc:
        print(f"kernel-eval {ns.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
