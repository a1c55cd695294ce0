"""The shape check on cuda: the overfit kernels of tests/shapes_corpus flagged, their general twins not."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

CORPUS = Path(__file__).resolve().parents[1] / "shapes_corpus"
CASES = sorted(p for p in CORPUS.glob("*/*.py") if p.stem != "reference")


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_overfit_kernels_are_flagged_on_cuda(path: Path):
    result = run_accuracy(
        RunAccuracyRequest(reference=str(path.parent / "reference.py"), candidate=str(path), backend="cuda")
    )
    print(
        path.parent.name,
        path.stem,
        result.verdict,
        [(r.sizes, r.verdict) for r in result.shapes.runs] if result.shapes else None,
        f"{result.timings.total_s:.2f}s",
    )
    assert result.verdict == "pass", result.summary
    assert result.shapes is not None and result.shapes.applicable
    failed = result.shapes.first_failure()
    assert (failed is not None) == path.stem.startswith("overfit"), result.shapes
