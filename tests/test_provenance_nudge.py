"""The compiled-kernel nudge (sandbox/harness/provenance.py CompiledStoreNudge) changes stored values in
the kernel's IR exactly as the interpreter's nudge changes its arrays. The interpreter goes through the
same TritonSemantic methods, so the IR rewrite runs here for real, in a subprocess (the patch is
process-wide)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, os
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np
import torch, triton, triton.language as tl
from sandbox.harness import provenance

@triton.jit
def copy_kernel(x_ptr, o_ptr, flag_ptr, flag_out_ptr, idx_ptr, idx_out_ptr, n,
                BLOCK: tl.constexpr, ATOMIC: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)
    tl.store(flag_out_ptr + offs, tl.load(flag_ptr + offs, mask=m), mask=m)
    tl.store(idx_out_ptr + offs, tl.load(idx_ptr + offs, mask=m), mask=m)
    if ATOMIC:  # the interpreter's atomics take 32- and 64-bit floats only
        tl.atomic_add(o_ptr + n, 1.0)

nudge = provenance.CompiledStoreNudge()
assert nudge.install()
out = {}
for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
    x = torch.tensor([0.0, 1.0, -2.0, 3.5], dtype=dtype)
    flags = torch.tensor([True, False, True, False])
    idx = torch.tensor([5, 6, 7, 8], dtype=torch.int64)
    row = {}
    for active in (False, True):
        o = torch.zeros(5, dtype=dtype); fo = torch.empty_like(flags); io = torch.empty_like(idx)
        nudge.active, nudge.nudged_sites = active, 0
        copy_kernel[(1,)](x, o, flags, fo, idx, io, 4, BLOCK=4, ATOMIC=dtype.itemsize >= 4)
        nudge.active = False
        row[str(active)] = {"o": o.double().tolist(), "flags": fo.tolist(), "idx": io.tolist(),
                            "sites": nudge.nudged_sites}
    expect = provenance._nudged(x.double().numpy()).tolist()
    row["expected"] = expect
    out[str(dtype)] = row
print(json.dumps(out))
"""


def test_compiled_nudge_in_the_ir_matches_the_interpreters_nudge():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(rows) == {"torch.float32", "torch.float16", "torch.bfloat16", "torch.float64"}
    for dtype, row in rows.items():
        plain, nudged = row["False"], row["True"]
        atomic = dtype in ("torch.float32", "torch.float64")
        assert plain["o"][:4] == [0.0, 1.0, -2.0, 3.5] and plain["o"][4] == float(atomic) and plain["sites"] == 0
        assert nudged["o"][:4] == row["expected"] == [2.0**-10, 1.03125, -2.0625, 3.609375], dtype
        assert nudged["o"][4] == (1.03125 if atomic else 0.0), dtype  # the atomic's value is nudged too
        assert nudged["flags"] == [False, True, False, True]  # booleans flipped
        assert nudged["idx"] == [5, 6, 7, 8] == plain["idx"]  # wide integers (indices) left alone
        assert nudged["sites"] == 2 + atomic, dtype  # the float store, the flag store, the atomic
