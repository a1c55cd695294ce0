"""Every correct candidate we hold through run_accuracy, for the provenance checks' false rejections.

The launch reads (sandbox/harness/provenance.py LaunchReads) reject an output that depends on the kernels'
stores while no kernel read an input or a copy of one, and warn where a kernel reads a tensor torch computed.
Both must stay silent on honest candidates: this runs the correct candidate of every task in
tests/heldout2-20, tests/realworld, tests/where_kernels and tests/shapes_corpus (cpu, one seed, the task's
shape) and prints one line per candidate: verdict, path, the kernels' reads by kind, the kernels that read a
computed tensor, the error type, and WARN where the computed-read warning was given.

    KERNEL_EVAL_HOME=/tmp/ke-scan .venv/bin/python benchmarks/provenance_honest.py   # ~1 h on 2 cores
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

FOLDERS = ("tests/heldout*", "tests/realworld", "tests/where_kernels", "tests/shapes_corpus")


def main() -> int:
    candidates = sorted(c for folder in FOLDERS for c in glob.glob(f"{folder}/*/candidate.py"))
    rejected = warned = 0
    for candidate in candidates:
        reference = os.path.join(os.path.dirname(candidate), "reference.py")
        command = [sys.executable, "-m", "tools.cli", "run", reference, candidate, "--backend", "cpu"]
        command += ["--shapes", "task", "--num-seeds", "1", "--json", "--no-daemon"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        try:
            result = json.loads(done.stdout)
        except json.JSONDecodeError:
            print("ERR", candidate, done.stderr[-300:], flush=True)
            continue
        provenance = (result.get("checks") or {}).get("provenance") or {}
        error = (result.get("error") or {}).get("type")
        warn = any("torch computed" in w for w in result.get("warnings", []))
        rejected += error == "kernels_read_no_input"
        warned += warn
        reads, computed = provenance.get("kernel_reads"), provenance.get("computed_by")
        print(result.get("verdict"), candidate, reads, computed, error, "WARN" if warn else "", flush=True)
    print(f"{len(candidates)} candidates; kernels_read_no_input {rejected}; computed-read warnings {warned}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
