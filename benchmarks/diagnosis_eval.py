"""Diagnosis quality on the labelled corpus (tests/diagnosis_corpus/manifest.json).

    python benchmarks/diagnosis_eval.py [--backend cpu|cuda] [--json out.json]

Per buggy candidate: run_accuracy -> explain_failure -> suggest_fix(verify) (patchable cases), and
the corrected twin through run_accuracy + explain_failure. Prints verdict accuracy (buggy verdict
as labelled and twin passes), primary-pattern top-1 accuracy, false diagnoses on correct kernels
(any diagnosis of confidence >= 0.5 on a twin) and the verified-fix rate (the labelled fix
verified, over patchable cases). Goals: top-1 >= 90%, zero false diagnoses, verified >= 80%.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ.setdefault("KERNEL_EVAL_HOME", tempfile.mkdtemp(prefix="kernel-eval-diag-"))
    from tests.diagnosis_corpus.runner import entries, metrics, run_entry

    outcomes = []
    print("| case | verdict (expected) | primary pattern (expected) | top fix | verified | twin | false diagnoses | s |")
    print("|---|---|---|---|---|---|---|---|")
    for entry in entries(args.backend):
        start = time.perf_counter()
        o = run_entry(entry, args.backend)
        outcomes.append(o)
        mark = lambda ok: "" if ok else " **x**"  # noqa: E731
        print(f"| {o.name} | {o.verdict} ({o.expected_verdict}){mark(o.verdict == o.expected_verdict)} | {o.pattern} ({o.expected_pattern})"
              f"{mark(o.top1)} | {o.top_fix} | {'yes' if o.fix_verified else ('-' if not o.patchable else 'no')} | {o.fixed_verdict} | "
              f"{', '.join(o.false_diagnoses) or 'none'} | {time.perf_counter() - start:.1f} |")
    m = metrics(outcomes)
    print(f"\nbackend {args.backend}: {m['cases']} cases; verdict accuracy {m['verdict_accuracy']:.0%}; primary-pattern top-1 "
          f"{m['top1_accuracy']:.0%} (goal >= 90%); false diagnoses on correct kernels {m['false_diagnoses_on_correct']} (goal 0); "
          f"verified-fix rate {m['verified_fix_rate']:.0%} over {m['patchable_cases']} patchable cases (goal >= 80%)")
    if args.json:
        Path(args.json).write_text(json.dumps({"metrics": m, "cases": [dataclasses.asdict(o) for o in outcomes]}, indent=2))


if __name__ == "__main__":
    main()
