"""explain_failure's repair-search budget as a hypothesis: does a longer one cite the bug's line more often?

    python benchmarks/explain_budget.py RESULTS.json [RESULTS.json ...] [--budgets 12,30] [--json out.jsonl]

RESULTS.json: diagnosis_eval.py --json outputs of labelled held-out corpora. The cases measured are those whose
explanation cited no line and took longer than the default budget (the search ended on it: where a longer one
could matter). Each case is run once per budget, side by side (a fresh run_accuracy each, so no explanation is
reused), and explain_failure's cited lines are compared with the bug's; the budget is set on
tools.thresholds.EXPLAIN_SEARCH_BUDGET_S["interpreter"] (cpu backend).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.diagnosis_corpus.runner import SEEDS, bug_lines, cited_lines  # noqa: E402
from tools import thresholds as T  # noqa: E402


def cases(results: list[str]) -> list[dict]:
    default = T.EXPLAIN_SEARCH_BUDGET_S["interpreter"]
    found = []
    for path in results:
        measured = json.loads(Path(path).read_text())["labelled"]["cases"]
        corpus = Path(path).name.split("diagnosis_")[1].split("_")[0]
        manifest = json.loads((ROOT / "tests" / corpus / "manifest.json").read_text())
        by_name = {f"{Path(e['task']).name}/{e['buggy']}": e for e in manifest}
        found += [by_name[c["name"]] for c in measured if not c["cited_lines"] and c["explain_s"] > default - 1]
    return found


def explain_once(entry: dict, budget: float) -> dict:
    from tools.accuracy import run_accuracy
    from tools.diagnosis import explain_failure
    from tools.models.accuracy import RunAccuracyRequest
    from tools.models.diagnosis import ExplainRequest

    folder = ROOT / entry["task"]
    T.EXPLAIN_SEARCH_BUDGET_S["interpreter"] = budget
    run = run_accuracy(
        RunAccuracyRequest(
            reference=str(folder / "reference.py"),
            candidate=str(folder / entry["buggy"]),
            backend="cpu",
            input_profile=entry["profile"],
            seeds=SEEDS[:2],
        )
    )
    started = time.perf_counter()
    explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
    seconds = time.perf_counter() - started
    cited = cited_lines([d for d in explained.diagnoses if d.tested != "refuted"][:2])
    tried = next((o.edits_tried or 0 for o in explained.experiments if o.id == "repair_search"), None)
    return {"cited": cited, "hit": bool(set(cited) & set(bug_lines(entry))), "s": round(seconds, 1), "tried": tried}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--budgets", default="12,30")
    parser.add_argument("--json")
    options = parser.parse_args()
    budgets = [float(b) for b in options.budgets.split(",")]
    rows = []
    selected = cases(options.results)
    print(f"{len(selected)} cases")
    for entry in selected:
        row = {"case": f"{Path(entry['task']).name}/{entry['buggy']}", "expected": bug_lines(entry)}
        row |= {f"{b:g}": explain_once(entry, b) for b in budgets}
        rows.append(row)
        print(json.dumps(row), flush=True)
        if options.json:
            Path(options.json).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    print("\n| budget | lines cited | explain s (median) | edits re-run (median) |\n|---|---|---|---|")
    for b in budgets:
        key = f"{b:g}"
        hits = sum(r[key]["hit"] for r in rows)
        seconds = statistics.median(r[key]["s"] for r in rows) if rows else 0
        tried = statistics.median(r[key]["tried"] or 0 for r in rows) if rows else 0
        print(f"| {key} s | {hits} / {len(rows)} | {seconds:.1f} | {tried:g} |")


if __name__ == "__main__":
    main()
