"""The real-world corpus (tests/realworld/) compiled on a GPU: the same kernels the cpu backend
passes must pass here (run by scripts/gpu_check.sh on the H200; skipped without CUDA)."""

from __future__ import annotations

import pytest
import torch

from tests.realworld.expectations import MANIFEST, expected, label, request_options
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


@pytest.mark.parametrize("entry", MANIFEST, ids=label)
def test_realworld_kernel_compiled_on_cuda(entry):
    result = run_accuracy(RunAccuracyRequest(**request_options(entry), backend="cuda", num_seeds=2))
    # attention_autotune's reference builds its mask with torch.ones(n, n): it only works on cuda
    # because forwards run under `with torch.device(job device)`.
    assert result.verdict == expected(entry, "cuda"), f"{result.summary} {result.error}"
    assert result.backend.name == "cuda" and not result.backend.interpreter
