"""Real-world-style Triton kernels (tests/realworld/) on the cpu backend, through run_accuracy."""

from __future__ import annotations

import pytest

from tests.realworld.expectations import MANIFEST, expected, label, request_options
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest


@pytest.mark.parametrize("entry", MANIFEST, ids=label)
def test_realworld_kernel_on_the_cpu_backend(entry):
    result = run_accuracy(RunAccuracyRequest(**request_options(entry), backend="cpu", num_seeds=2))
    assert result.verdict == expected(entry, "cpu"), f"{result.summary} {result.error}"
    if result.verdict == "unsupported":  # says what, where, why and what to do
        assert result.error.type == "unsupported" and result.error.line and result.error.source_line
        assert "make_block_ptr" in result.error.source_line and "tensor_descriptor" in result.error.hint
    else:
        assert result.checks.kernel_launches >= 3
