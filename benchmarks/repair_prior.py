"""Measure the repair search's operator order on the held-out corpora and write it (tools/repair/prior.py).

The search (tools/repair/search.py) re-runs single-site edits in a planned order until one passes; the budget
(12 s of explain_failure on the interpreter: a few dozen edits) makes the order what decides whether a fix is
found. The order is measured, not guessed: for every buggy kernel of tests/heldout*/manifest.json, plan the
edits with no located line and count, per operator, the edits it proposes and the bugs it undoes exactly (the
edited source parses to the corpus's correct candidate; a bug several operators undo credits each a share).
Operators go by (undone + 0.5) / (edits + 20): the likeliest undo per edit re-run first (an operator with few
sites is cheap to try, so a rare one is early even before it has undone anything).

    python benchmarks/repair_prior.py            # measure, print the table and the check, write the module
    python benchmarks/repair_prior.py --check    # only the leave-one-corpus-out check
    python benchmarks/repair_prior.py --skip heldout17   # leave out a blind set before its first sight
    python benchmarks/repair_prior.py --jobs 16          # 16 processes side by side (the same table)

The check: for each corpus, the order measured on the other corpora, against plain top-to-bottom order, by how
many of its exact undos come within the first K edits of the plan (no located line).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.repair import search  # noqa: E402

MODULE = ROOT / "tools" / "repair" / "prior.py"
WITHIN = (16, 32, 64, 128)


def _tree(source: str) -> str:
    return ast.dump(ast.parse(source))


def _measured(item: tuple[str, dict]) -> dict:
    """One bug: the (operator, line) of every edit, and the operators whose edit undoes it."""
    corpus, case = item
    task = ROOT / case["task"]
    buggy = (task / case["buggy"]).read_text()
    fixed = _tree((task / case.get("fixed", "candidate.py")).read_text())
    proposed = search.plan(buggy, [])
    undo = sorted({e.operator for e in proposed if e.source and _tree(e.source) == fixed})
    print(f"  {corpus}/{task.name}/{case['buggy']}: {len(proposed)} edits, undo {undo}", flush=True)
    return {"corpus": corpus, "edits": [(e.operator, e.line) for e in proposed], "undo": undo}


def measure(skip: list[str], jobs: int = 1) -> list[dict]:
    """Per bug: its corpus, the (operator, line) of every edit, and the operators whose edit undoes it (`jobs`
    processes, in the manifests' order)."""
    items = [
        (manifest.parent.name, case)
        for manifest in sorted(ROOT.glob("tests/heldout*/manifest.json"))
        if manifest.parent.name not in skip
        for case in json.loads(manifest.read_text())
    ]
    if jobs <= 1:
        return [_measured(item) for item in items]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_measured, items, chunksize=4))


def counts(cases: list[dict]) -> dict[str, tuple[int, float]]:
    proposed: Counter[str] = Counter()
    undone: dict[str, float] = {}
    for case in cases:
        proposed.update(op for op, _ in case["edits"])
        for op in case["undo"]:
            undone[op] = undone.get(op, 0.0) + 1 / len(case["undo"])
    return {op: (proposed[op], round(undone.get(op, 0.0), 3)) for op in sorted(set(proposed) | set(undone))}


@dataclass(frozen=True)
class _Planned:
    operator: str
    line: int
    index: int  # in the case's edit list


def _position(case: dict, rank: dict[str, float] | None) -> int | None:
    """Where the first undo comes in the search's own plan (search.arrange, no located line) ordered by `rank`;
    None: top to bottom."""
    planned = [_Planned(op, line, i) for i, (op, line) in enumerate(case["edits"])]
    order = search.arrange(planned, {}, rank) if rank is not None else sorted(planned, key=lambda e: (e.line, e.index))
    return next((k for k, e in enumerate(order) if e.operator in case["undo"]), None)


def check(cases: list[dict]) -> None:
    corpora = sorted({c["corpus"] for c in cases}, key=lambda name: int(name.removeprefix("heldout")))
    undone = [c for c in cases if c["undo"]]
    print(f"\n{len(cases)} bugs, {len(undone)} undone exactly by some edit; first undo within the first K edits:")
    print(f"| order | {' | '.join(f'K={k}' for k in WITHIN)} |\n|---|{'---|' * len(WITHIN)}")
    rows = {"top to bottom": Counter(), "measured on the other corpora": Counter()}
    for corpus in corpora:
        held = [c for c in undone if c["corpus"] == corpus]
        rank = search.rank_of(counts([c for c in cases if c["corpus"] != corpus]))
        for name, ranking in (("top to bottom", None), ("measured on the other corpora", rank)):
            for case in held:
                at = _position(case, ranking)
                rows[name].update(k for k in WITHIN if at is not None and at < k)
    for name, within in rows.items():
        print(f"| {name} | {' | '.join(str(within[k]) for k in WITHIN)} |")


def write(table: dict[str, tuple[int, float]], cases: int, corpora: list[str]) -> None:
    lines = [
        '"""The repair search\'s operator counts, measured by benchmarks/repair_prior.py (generated: do not edit).',
        "",
        f"Per operator: (edits proposed, bugs undone exactly) over the {cases} bugs of {len(corpora)} corpora",
        f"({corpora[0]} .. {corpora[-1]}); the search orders operators by (undone + 0.5) / (edits + 20)",
        "(tools/repair/search.py).",
        '"""',
        "",
        "COUNTS: dict[str, tuple[int, float]] = {",
        *(f'    "{op}": {value},' for op, value in table.items()),
        "}",
        "",
    ]
    MODULE.write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only the leave-one-corpus-out check")
    parser.add_argument("--skip", nargs="*", default=[], help="corpora to leave out (a blind set not yet measured)")
    parser.add_argument("--jobs", type=int, default=1, help="processes measuring bugs side by side (default 1)")
    options = parser.parse_args()
    cases = measure(options.skip, options.jobs)
    table = counts(cases)
    if not options.check:
        rank = search.rank_of(table)
        print("\n| operator | edits | undone | rank |\n|---|---|---|---|")
        for op in sorted(table, key=lambda o: rank[o]):
            print(f"| {op} | {table[op][0]} | {table[op][1]:g} | {rank[op]:.4f} |")
        write(table, len(cases), sorted({c["corpus"] for c in cases}, key=lambda n: int(n.removeprefix("heldout"))))
        print(f"\nwrote {MODULE.relative_to(ROOT)}")
    check(cases)


if __name__ == "__main__":
    main()
