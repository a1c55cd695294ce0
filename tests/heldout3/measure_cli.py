"""Measure held-out corpus 3 through the CLI, as a user would.

    python tests/heldout3/measure_cli.py cases OUT.json [CASE ...]   # run / explain / fix --verify per case
    python tests/heldout3/measure_cli.py correct OUT.json            # run + explain on each correct candidate

A case is `kernel/bug_file.py`; without any, every manifest entry is measured. For the correct
candidates every profile the manifest uses for that kernel (and `task`) is run: any diagnosis
explain returns on their PASS runs is a false one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = str(ROOT / ".venv" / "bin" / "kernel-eval")
MANIFEST = json.loads((Path(__file__).parent / "manifest.json").read_text())


def cli(*args: str) -> dict:
    start = time.perf_counter()
    done = subprocess.run([CLI, *args], cwd=ROOT, capture_output=True, text=True)
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        answer = {"cli_error": (done.stderr or done.stdout)[-3000:]}
    answer["_rc"] = done.returncode
    answer["_s"] = round(time.perf_counter() - start, 1)
    return answer


def run(task: str, candidate: str, profile: str) -> dict:
    return cli(
        "run", "--reference", f"{task}/reference.py", "--candidate", f"{task}/{candidate}",
        "--backend", "cpu", "--input-profile", profile, "--json",
    )  # fmt: skip


def cases(names: list[str]) -> list[dict]:
    rows = []
    for entry in MANIFEST:
        name = entry["task"].split("/")[-1] + "/" + entry["buggy"]
        if names and name not in names:
            continue
        row = {"case": name, "run": run(entry["task"], entry["buggy"], entry["profile"])}
        run_id = row["run"].get("run_id")
        if run_id:
            row["explain"] = cli("explain", "--run", run_id, "--json")
            row["fix"] = cli("fix", "--run", run_id, "--verify", "--json")
        print(name, row["run"].get("verdict"), run_id, flush=True)
        rows.append(row)
    return rows


def correct() -> list[dict]:
    profiles: dict[str, set[str]] = {}
    for entry in MANIFEST:
        profiles.setdefault(entry["task"], {"task"}).add(entry["profile"])
    rows = []
    for task, wanted in profiles.items():
        for profile in sorted(wanted):
            result = run(task, "candidate.py", profile)
            explained = cli("explain", "--run", result["run_id"], "--json") if result.get("run_id") else {}
            diagnoses = [
                {k: d.get(k) for k in ("pattern", "confidence", "tested", "summary", "evidence")}
                for d in explained.get("diagnoses") or []
            ]
            rows.append(
                {"task": task, "profile": profile, "verdict": result.get("verdict"), "run_id": result.get("run_id"),
                 "diagnoses": diagnoses, "explain_summary": explained.get("summary")}
            )  # fmt: skip
            print(task, profile, result.get("verdict"), len(diagnoses), explained.get("summary"), flush=True)
    return rows


def main() -> None:
    mode, out = sys.argv[1], sys.argv[2]
    rows = cases(sys.argv[3:]) if mode == "cases" else correct()
    Path(out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
