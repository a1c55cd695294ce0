"""Measure the held-out corpus through the CLI, as a user would: per case
`kernel-eval run --json`, `kernel-eval explain --json`, `kernel-eval fix --verify --json`; per
correct candidate and profile, `run` then `explain` on its PASS run (any diagnosis is false).

    python tests/heldout2/measure_cli.py OUT.json [--part I/N]
    python tests/heldout2/measure_cli.py --table OUT.json [OUT2.json ...]   # the per-case table
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = str(ROOT / ".venv" / "bin" / "kernel-eval")


def _cli(*args: str) -> dict:
    out = subprocess.run([CLI, *args], cwd=ROOT, capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"cli_error": out.stderr[-2000:] or out.stdout[-2000:], "rc": out.returncode}


def _run(task: str, candidate: str, profile: str) -> dict:
    return _cli(
        "run", "--reference", f"{task}/reference.py", "--candidate", f"{task}/{candidate}",
        "--backend", "cpu", "--input-profile", profile, "--num-seeds", "2", "--json",
    )  # fmt: skip


def _diagnoses(explained: dict) -> list[dict]:
    keep = ("pattern", "confidence", "summary", "evidence", "tested", "suggested_fixes")
    return [{k: d.get(k) for k in keep} for d in explained.get("diagnoses") or []]


def case(entry: dict) -> dict:
    start = time.perf_counter()
    run = _run(entry["task"], entry["buggy"], entry["profile"])
    row = {"entry": entry, "verdict": run.get("verdict"), "run_id": run.get("run_id"), "summary": run.get("summary")}
    if run.get("run_id"):
        row["diagnoses"] = _diagnoses(_cli("explain", "--run", run["run_id"], "--json"))
        fixes = _cli("fix", "--run", run["run_id"], "--verify", "--json")
        row["fixes"] = [
            {
                "fix": f.get("fix"),
                "for_pattern": f.get("for_pattern"),
                "patched": f.get("patch") is not None or bool(f.get("patched_source")),
                "verified": f.get("verified"),
                "verification": (f.get("verification") or {}).get("summary")
                if isinstance(f.get("verification"), dict)
                else f.get("verification"),
            }
            for f in fixes.get("fixes") or []
        ]
        row["fix_summary"] = fixes.get("summary")
    row["seconds"] = round(time.perf_counter() - start, 1)
    return row


def twin(task: str, profile: str) -> dict:
    run = _run(task, "candidate.py", profile)
    row = {"task": task, "profile": profile, "verdict": run.get("verdict"), "run_id": run.get("run_id")}
    if run.get("run_id"):
        row["diagnoses"] = _diagnoses(_cli("explain", "--run", run["run_id"], "--json"))
    return row


def table(paths: list[str]) -> str:
    cases, twins = [], []
    for path in paths:
        data = json.loads(Path(path).read_text())
        cases += data["cases"]
        twins += data["twins"]
    order = {
        (e["task"], e["buggy"]): i
        for i, e in enumerate(json.loads((ROOT / "tests/heldout2/manifest.json").read_text()))
    }
    cases.sort(key=lambda r: order[(r["entry"]["task"], r["entry"]["buggy"])])
    lines = [
        "| case | profile | bug | verdict (expected) | primary pattern (expected) | top fix (expected) | verified "
        "| s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    n_verdict = n_top1 = n_fix_top = n_verified = n_patchable = 0
    for r in cases:
        e = r["entry"]
        diagnoses = r.get("diagnoses") or []
        fixes = r.get("fixes") or []
        primary = diagnoses[0]["pattern"] if diagnoses else None
        top_fix = fixes[0]["fix"] if fixes else None
        verified = [f["fix"] for f in fixes if f.get("verified")]
        ok_verdict = r["verdict"] == e["verdict"]
        ok_top1 = primary == e["pattern"]
        n_verdict += ok_verdict
        n_top1 += ok_top1
        n_fix_top += top_fix == e["fix"]
        if e["patchable"]:
            n_patchable += 1
            n_verified += e["fix"] in verified
        mark = lambda ok: "" if ok else " **x**"  # noqa: E731
        ver = ", ".join(verified) if verified else ("no" if any(f.get("patched") for f in fixes) else "-")
        lines.append(
            f"| {e['task'].split('/')[-1]}/{e['buggy']} | {e['profile']} | {e['bug']} | {r['verdict']} ({e['verdict']})"
            f"{mark(ok_verdict)} | {primary} ({e['pattern']}){mark(ok_top1)} | {top_fix} ({e['fix']})"
            f"{mark(top_fix == e['fix'])} | {ver} | {r['seconds']} |"
        )
    total = len(cases)
    false = [(t["task"], t["profile"], t["verdict"], [d["pattern"] for d in t.get("diagnoses") or []]) for t in twins]
    n_false = sum(1 for *_, d in false if d)
    lines += [
        "",
        f"{total} cases: verdict right {n_verdict}/{total}; primary pattern top-1 {n_top1}/{total}; "
        f"top fix = expected fix {n_fix_top}/{total}; expected fix verified {n_verified}/{n_patchable} patchable",
        f"correct candidates: {len(false)} PASS runs (task profile and each case's profile) explained, "
        f"{n_false} with any diagnosis",
    ]
    lines += [f"  {t.split('/')[-1]} ({p}): {v}, {', '.join(d) or 'no diagnosis'}" for t, p, v, d in sorted(false)]
    return "\n".join(lines)


def main() -> None:
    if sys.argv[1] == "--table":
        print(table(sys.argv[2:]))
        return
    out = Path(sys.argv[1])
    part, parts = 0, 1
    if "--part" in sys.argv:
        part, parts = (int(x) for x in sys.argv[sys.argv.index("--part") + 1].split("/"))
    manifest = json.loads((ROOT / "tests/heldout2/manifest.json").read_text())
    mine = [e for i, e in enumerate(manifest) if i % parts == part]
    rows = []
    for e in mine:
        rows.append(case(e))
        print(json.dumps({k: rows[-1].get(k) for k in ("verdict", "seconds")}), e["task"], e["buggy"], flush=True)
    twins = sorted({(e["task"], p) for e in manifest for p in ("task", e["profile"])})
    twin_rows = [twin(t, p) for i, (t, p) in enumerate(twins) if i % parts == part]
    out.write_text(json.dumps({"cases": rows, "twins": twin_rows}, indent=1))


if __name__ == "__main__":
    main()
