"""The whole CLI: its parser (flags generated from the request models), the commands, what they print.

An in-process command runs here; so does a command the daemon runs for a CLI (tools/cli/forward.py
sends it the arguments, tools/cli/daemon/server.py runs main() on them with its output sent back).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from pathlib import Path

from sandbox.protocol import EXIT_CODES, KernelEvalError
from tools import background
from tools import cli as cli_package
from tools.cli.args import add_model_arguments, model_from_args
from tools.cli.dispatch import add_dispatch_arguments, call_tool
from tools.models.accuracy import RunAccuracyRequest, RunAccuracyResult
from tools.models.bench import BenchmarkRequest
from tools.models.compare import CompareFilesRequest, CompareReport
from tools.models.compile import CompileKernelRequest, CompileKernelResult
from tools.models.diagnosis import ExplainRequest, ExplainResult, FixRequest, FixResult
from tools.models.mutate import MutateRequest, MutateResult

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


def _cmd_run(ns: argparse.Namespace) -> int:
    result = call_tool("run_accuracy", model_from_args(RunAccuracyRequest, ns), RunAccuracyResult, ns)
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
        print(result.summary)
        for seed in result.seeds:
            print(f"  seed {seed.seed}: {_seed_text(result, seed)}")
        _print_error(result.error)
        for warning in result.warnings:
            print(f"  warning: {warning}")
        print(f"  run_id {result.run_id} ({result.timings.total_s:.2f} s); next: {result.next_step}")
    return EXIT_OK if result.verdict == "pass" else EXIT_NEGATIVE


def _cmd_compile(ns: argparse.Namespace) -> int:
    result = call_tool("compile_kernel", model_from_args(CompileKernelRequest, ns), CompileKernelResult, ns)
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
        print(result.summary)
        for kernel in result.kernels:
            stats = ", ".join(
                f"{k} {v}"
                for k, v in (
                    ("registers", kernel.registers),
                    ("spills", kernel.spills),
                    ("shared", kernel.shared_memory),
                    ("warps", kernel.num_warps),
                    ("stages", kernel.num_stages),
                )
                if v is not None
            )
            print(
                f"  kernel {kernel.name} [{kernel.target}]: {'compiled' if kernel.compiled else 'FAILED'}"
                + (f"; {stats}" if stats else "")
            )
        _print_error(result.error)
        for warning in result.warnings:
            print(f"  warning: {warning}")
    return EXIT_OK if result.ok else EXIT_NEGATIVE


def _cmd_explain(ns: argparse.Namespace) -> int:
    result = call_tool("explain_failure", model_from_args(ExplainRequest, ns), ExplainResult, ns)
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
        print(result.summary)
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
    return EXIT_OK


def _cmd_fix(ns: argparse.Namespace) -> int:
    result = call_tool("suggest_fix", model_from_args(FixRequest, ns), FixResult, ns)
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
        print(result.summary)
        for fix in result.fixes:
            state = (
                "verified"
                if fix.verified
                else (f"not verified: {fix.verification.verdict}" if fix.verification else "")
            )
            label = f"({state})" if state else ""
            print(f"\n## {fix.fix}: {fix.title} {label}\n  why: {fix.why}\n  triton: {fix.guidance['triton']}")
            if fix.verification:
                print(f"  measured: {fix.verification.describe()}")
            if fix.patch:
                print(fix.patch)
    return EXIT_OK if any(f.verified for f in result.fixes) or not ns.verify else EXIT_NEGATIVE


def _cmd_mutate(ns: argparse.Namespace) -> int:
    if ns.list_operators:
        from tools.mutate.operators import OPERATORS

        for op in OPERATORS.values():
            print(f"{op.id:22} {op.family:13} {op.description}")
        return EXIT_OK
    result = call_tool("mutate", model_from_args(MutateRequest, ns), MutateResult, ns)
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
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
    return EXIT_OK if result.survived == 0 else EXIT_NEGATIVE


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


def _cmd_bench(ns: argparse.Namespace) -> int:
    from tools.benchmark_kernel import benchmark_kernel

    result = benchmark_kernel(model_from_args(BenchmarkRequest, ns))
    if ns.json:
        print(result.model_dump_json(indent=2))
    else:
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
    return EXIT_OK if result.verdict == "ok" else EXIT_NEGATIVE


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

    run = sub.add_parser(
        "run",
        help="run_accuracy: reference vs candidate in the sandbox, judged against the FP64 golden",
        description=RunAccuracyRequest.__doc__,
    )
    add_model_arguments(run, RunAccuracyRequest)
    add_dispatch_arguments(run)
    run.add_argument("--json", action="store_true", help="print the full JSON result (as the MCP tool returns)")
    run.set_defaults(handler=_cmd_run)

    batch = sub.add_parser(
        "batch",
        help="run_accuracy on many requests at once (a JSON-lines manifest), locally or on a Ray cluster",
        description="Judge every request of a manifest (one run_accuracy request JSON per line, the fields of "
        "`kernel-eval run --json`'s request) on every sandbox slot and GPU of this machine, or on a Ray cluster. "
        "Each result is what `kernel-eval run` gives that request alone. Exit status: 0 when every request "
        "passes, 1 otherwise, 2 for a bad manifest.",
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
    batch.add_argument("--json", action="store_true", help="one result JSON per line, in input order")
    batch.set_defaults(handler=_cmd_batch)

    compile_ = sub.add_parser(
        "compile",
        help="compile_kernel: does the candidate import and compile; per-kernel resources",
        description=CompileKernelRequest.__doc__,
    )
    add_model_arguments(compile_, CompileKernelRequest)
    add_dispatch_arguments(compile_)
    compile_.add_argument("--json", action="store_true", help="print the full JSON result")
    compile_.set_defaults(handler=_cmd_compile)

    explain = sub.add_parser(
        "explain",
        help="explain_failure: the failure pattern of a run, with evidence",
        description=ExplainRequest.__doc__,
    )
    add_model_arguments(explain, ExplainRequest, aliases={"run_id": ["--run"]})
    add_dispatch_arguments(explain)
    explain.add_argument("--json", action="store_true", help="print the full JSON result")
    explain.set_defaults(handler=_cmd_explain)

    fix = sub.add_parser(
        "fix", help="suggest_fix: patches for a run's failure, optionally verified", description=FixRequest.__doc__
    )
    add_model_arguments(fix, FixRequest, aliases={"run_id": ["--run"]})
    add_dispatch_arguments(fix)
    fix.add_argument("--json", action="store_true", help="print the full JSON result")
    fix.set_defaults(handler=_cmd_fix, verify=False)

    mutate = sub.add_parser(
        "mutate",
        help="plant known bugs in a correct candidate: which does the task's test catch?",
        description=MutateRequest.__doc__,
    )
    add_model_arguments(mutate, MutateRequest)
    mutate.add_argument("--list-operators", action="store_true", help="list the mutation operators and exit")
    add_dispatch_arguments(mutate)
    mutate.add_argument("--json", action="store_true", help="print the full JSON result")
    mutate.set_defaults(handler=_cmd_mutate)

    bench = sub.add_parser(
        "bench",
        help="benchmark_kernel: time the candidate against the reference on the device, with trust checks",
        description=BenchmarkRequest.__doc__,
    )
    add_model_arguments(bench, BenchmarkRequest, aliases={"run_id": ["--run"]})
    bench.add_argument("--json", action="store_true", help="print the full JSON result (as the MCP tool returns)")
    bench.set_defaults(handler=_cmd_bench)

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
