"""Diagnosis quality: the labelled corpus and the mutation-generated corpus.

    python benchmarks/diagnosis_eval.py [--backend cpu|cuda] [--corpus labelled|mutation|all]
        [--kernels a,b] [--kernels-dir DIR] [--manifest FILE] [--operators x,y] [--per-operator N] [--jobs N]
        [--json out.json]

Labelled corpus (tests/diagnosis_corpus/manifest.json): per buggy candidate, run_accuracy ->
explain_failure -> suggest_fix(verify) and the corrected twin through run_accuracy +
explain_failure: verdict accuracy, top-1, false diagnoses, verified-fix rate.

Mutation corpus (tests/mutation_corpus/): every operator of tools/mutate/operators.py on every
correct kernel; per mutant run_accuracy under the inputs that expose the operator (equivalent
mutants, which pass, and invalid ones, which do not compile or run, are reported and not counted),
explain_failure (top-1: the first credible diagnosis is one the operator expects; detected: an
expected pattern at confidence >= 0.5) and suggest_fix(verify) for patchable operators
(verified: a patched mutant passes). False
diagnoses: any diagnosis of confidence >= 0.5 on a correct kernel, under each profile its
manifest lists. Goals: top-1 >= 90% per operator family, verified >= 80%, zero false diagnoses.

--jobs N runs mutation cases in N worker processes (each with its own sandbox pool, one shared
KERNEL_EVAL_HOME): rows print as cases finish, the tables at the end are in plan order.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _pct(value) -> str:
    return "-" if value is None else f"{value:.0%}"


def _cited(o) -> str:
    if not o.expected_lines:
        return "-"
    mark = "" if o.localized else " **x**"
    tensor = f" {o.tensor}" if o.tensor else ""
    return f"{','.join(map(str, o.cited_lines)) or 'none'} ({','.join(map(str, o.expected_lines))}){mark}{tensor}"


def labelled(backend: str) -> dict:
    from tests.diagnosis_corpus.runner import entries, metrics, run_entry

    outcomes = []
    print(
        "| case | verdict (expected) | primary pattern (expected) | top fix | verified | twin | false diagnoses "
        "| lines cited (bug's) | explain s | fix s | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    from tools.errors import ToolInputError

    for entry in entries(backend):
        start = time.perf_counter()
        try:
            o = run_entry(entry, backend, verify_all=True)
        except ToolInputError as exc:  # e.g. the reference itself fails on this backend: said, not counted
            print(
                f"| {Path(entry['task']).name}/{entry['buggy']} | not run: {str(exc)[:160]} | | | | | | |", flush=True
            )
            continue
        outcomes.append(o)
        mark = lambda ok: "" if ok else " **x**"  # noqa: E731
        print(
            f"| {o.name} | {o.verdict} ({o.expected_verdict}){mark(o.verdict == o.expected_verdict)} | {o.pattern} "
            f"({o.expected_pattern})"
            f"{mark(o.top1)} | {o.top_fix} | {'yes' if o.fix_verified else ('-' if not o.patchable else 'no')} | "
            f"{o.fixed_verdict} | "
            f"{', '.join(o.false_diagnoses) or 'none'} | {_cited(o)} | {o.explain_s:.1f} | {o.fix_s:.1f} | "
            f"{time.perf_counter() - start:.1f} |",
            flush=True,
        )
    m = metrics(outcomes)
    print(
        f"\nlabelled corpus, backend {backend}: {m['cases']} cases; verdict accuracy {m['verdict_accuracy']:.0%}; "
        "primary-pattern "
        f"top-1 {m['top1_accuracy']:.0%}; false diagnoses on correct kernels {m['false_diagnoses_on_correct']}; "
        f"verified-fix rate {_pct(m['verified_fix_rate'])} over {m['patchable_cases']} patchable cases"
    )
    if m["lined_cases"]:
        print(
            f"where (the {m['lined_cases']} cases with the bug's lines): localized {_pct(m['localized'])} (naming "
            f"the tensor {_pct(m['localized_with_tensor'])}), a verified "
            f"fix {_pct(m['any_verified'])}; logic/indexing ({m['logic_cases']}): localized "
            f"{_pct(m['logic_localized'])}, a verified fix {_pct(m['logic_any_verified'])}; slowest explain "
            f"{m['explain_s_max']:.1f} s, fix {m['fix_s_max']:.1f} s"
        )
    print()
    return {"metrics": m, "cases": [dataclasses.asdict(o) for o in outcomes]}


def _in_worker(function, item, backend: str, kernels_dir: str | None):
    """One task in a worker process: the corpus folder is module state, so set it there too."""
    from tests.mutation_corpus.runner import use_kernels

    if kernels_dir:
        use_kernels(Path(kernels_dir))
    return function(item, backend)


def _map(function, items, backend: str, jobs: int, kernels_dir: str | None):
    """function(item, backend) for every item, in order (in `jobs` processes when jobs > 1)."""
    if jobs <= 1:
        return [function(item, backend) for item in items]
    with _workers(jobs) as workers:
        return list(
            workers.map(_in_worker, [function] * len(items), items, [backend] * len(items), [kernels_dir] * len(items))
        )


def _each_outcome(cases, backend: str, jobs: int, kernels_dir: str | None):
    """Outcomes as cases finish (in plan order when jobs == 1)."""
    from tests.mutation_corpus.runner import run_case

    if jobs <= 1:
        yield from (run_case(case, backend) for case in cases)
        return
    with _workers(jobs) as workers:
        futures = [workers.submit(_in_worker, run_case, case, backend, kernels_dir) for case in cases]
        for future in concurrent.futures.as_completed(futures):
            yield future.result()


def _workers(jobs: int) -> concurrent.futures.ProcessPoolExecutor:
    # spawn: a fork of a process that holds sandbox pools and CUDA state is not safe
    return concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))


def mutation(
    backend: str, kernel_names, operators, per_operator, jobs: int = 1, kernels_dir: str | None = None
) -> dict:
    from tests.mutation_corpus.runner import (
        as_json,
        false_diagnoses,
        kernels,
        metrics,
        plan,
    )

    cases = plan(backend, kernel_names, operators, per_operator)
    print(f"mutation corpus, backend {backend}: {len(cases)} mutants\n")
    print("| mutant | inputs | verdict | primary (tested) | expected | top-1 | fix verified | s |")
    print("|---|---|---|---|---|---|---|---|")
    outcomes = []
    for o in _each_outcome(cases, backend, jobs, kernels_dir):
        outcomes.append(o)
        fix = "-" if o.equivalent or not o.patchable else ("yes" if o.fix_verified else "**no**")
        top1 = (
            ("equivalent" if o.verdict == "pass" else "invalid mutant")
            if o.equivalent
            else ("yes" if o.top1 else "**no**")
        )
        print(
            f"| {o.case} | {o.exposure} | {o.verdict} | {o.primary} ({o.primary_tested}) | {'/'.join(o.expected)} | "
            f"{top1} | "
            f"{fix} | {o.seconds:.1f} |",
            flush=True,
        )
    correct = [k for k in kernels() if not kernel_names or k["name"] in kernel_names]
    false = [f for found in _map(false_diagnoses, correct, backend, jobs, kernels_dir) for f in found]
    order = {case.name: i for i, case in enumerate(cases)}
    outcomes.sort(key=lambda o: order[o.case])
    m = metrics(outcomes)
    print("\n| operator | mutants | equivalent | counted | detected | top-1 | fix verified / patchable |")
    print("|---|---|---|---|---|---|---|")
    for name, b in [*m["by_operator"].items(), ("**all**", m["overall"])]:
        print(
            f"| {name} | {b['mutants']} | {b['equivalent']} | {b['counted']} | {b['detected']} | {b['top1']} "
            f"({_pct(b['top1_rate'])}) | "
            f"{b['fix_verified']} / {b['patchable']} ({_pct(b['fix_rate'])}) |"
        )
    print("\n| family | counted | top-1 | fix verified |")
    print("|---|---|---|---|")
    for name, b in m["by_family"].items():
        print(f"| {name} | {b['counted']} | {_pct(b['top1_rate'])} | {_pct(b['fix_rate'])} |")
    print(f"\nfalse diagnoses on correct kernels: {len(false)}" + "".join(f"\n  - {f}" for f in false))
    return {"metrics": m, "false_diagnoses": false, "mutants": as_json(outcomes)}


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--corpus", choices=["labelled", "mutation", "all"], default="all")
    parser.add_argument("--kernels", help="comma list of mutation-corpus kernels (default: all)")
    parser.add_argument(
        "--kernels-dir",
        help="another folder of kernels with a manifest.json in the corpus's format "
        "(default: tests/mutation_corpus/kernels), e.g. a held-out set",
    )
    parser.add_argument(
        "--manifest",
        help="another labelled manifest in the format of tests/diagnosis_corpus/manifest.json "
        "(task paths relative to the repository root), e.g. a held-out set",
    )
    parser.add_argument("--operators", help="comma list of operators (default: all)")
    parser.add_argument("--per-operator", type=int, help="at most this many mutants per operator")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the mutation corpus (default 1)")
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ.setdefault("KERNEL_EVAL_HOME", tempfile.mkdtemp(prefix="kernel-eval-diag-"))
    split = lambda s: s.split(",") if s else None  # noqa: E731
    report = {}
    started = time.perf_counter()
    if args.manifest:
        from tests.diagnosis_corpus import runner

        runner.MANIFEST = json.loads(Path(args.manifest).read_text())
    if args.corpus in ("labelled", "all"):
        report["labelled"] = labelled(args.backend)
    if args.kernels_dir:
        from tests.mutation_corpus.runner import use_kernels

        use_kernels(Path(args.kernels_dir))
    if args.corpus in ("mutation", "all"):
        report["mutation"] = mutation(
            args.backend, split(args.kernels), split(args.operators), args.per_operator, args.jobs, args.kernels_dir
        )
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
