"""Real-world-style Triton kernels (tests/realworld/) on the cpu backend, through run_accuracy."""

from __future__ import annotations

import pytest

from tests.realworld.expectations import MANIFEST, expected, label, request_options
from tools.accuracy import run_accuracy
from tools.compile import compile_kernel
from tools.models.accuracy import RunAccuracyRequest
from tools.models.compile import CompileKernelRequest


@pytest.mark.parametrize("entry", MANIFEST, ids=label)
def test_realworld_kernel_on_the_cpu_backend(entry):
    result = run_accuracy(RunAccuracyRequest(**request_options(entry), backend="cpu", num_seeds=2))
    assert result.verdict == expected(entry, "cpu"), f"{result.summary} {result.error}"
    if result.verdict == "unsupported":  # says what, where, why and what to do
        assert result.error.type == "unsupported" and result.error.line and result.error.source_line
        assert "make_block_ptr" in result.error.source_line and "tensor_descriptor" in result.error.hint
    else:
        assert result.checks.kernel_launches >= 3
        assert result.checks.out_of_bounds_reads == [], "every load of these kernels stays inside its tensors"


COMPILABLE = [e for e in MANIFEST if expected(e, "cpu") == "pass" and "dtype" not in e and "candidate" not in e]


@pytest.mark.parametrize("entry", COMPILABLE, ids=label)
def test_realworld_kernel_compiles_for_sm90_offline(entry):
    """compile_kernel on the cpu backend: the interpreter runs the forward, then each launched
    signature goes through Triton's real compiler for sm_90 (whose process has no GPU driver
    either: the import-time driver queries must answer there too)."""
    options = request_options(entry)
    result = compile_kernel(
        CompileKernelRequest(candidate=options["candidate"], reference=options["reference"], backend="cpu")
    )
    assert result.verdict == "ok" and result.kernels and all(k.compiled for k in result.kernels), result.summary
