"""The shape check (tools/shapes.py, run_accuracy's shapes / shapes_mode): kernels right only at the task's
sizes are flagged, their general twins are not (tests/shapes_corpus/, real Triton kernels on the
interpreter); the rewrite keeps everything the module derives from a size consistent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools import shapes
from tools.accuracy import run_accuracy
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest

CORPUS = Path(__file__).resolve().parent / "shapes_corpus"
CASES = sorted(p for p in CORPUS.glob("*/*.py") if p.stem != "reference")

REFERENCE = """
import torch
import torch.nn as nn

batch_size = 64
dim: int = 512
M, K = 96, 40
axis = 1
seed = 1234
SHAPE = (batch_size, dim)


class Model(nn.Module):
    def forward(self, x):
        return x.sum(axis)


def get_inputs():
    return [torch.randn(*SHAPE)]


def get_init_inputs():
    return []
"""


def test_size_constants_are_module_level_integers_from_eight_up_and_not_seeds():
    found = shapes.size_constants(REFERENCE)
    assert {n: c.value for n, c in found.items()} == {"batch_size": 64, "dim": 512, "M": 96, "K": 40}


def test_the_rewrite_changes_the_literal_so_derived_values_follow():
    constants = shapes.size_constants(REFERENCE)
    text = shapes.rewrite(REFERENCE, constants, {"batch_size": 33, "dim": 257, "K": 17})
    namespace: dict = {}
    exec(compile(text, "ref", "exec"), namespace)  # noqa: S102 - our own test reference
    assert namespace["SHAPE"] == (33, 257) and namespace["M"] == 96 and namespace["K"] == 17
    assert namespace["axis"] == 1 and namespace["seed"] == 1234
    assert text.count("\n") == REFERENCE.count("\n")  # lines keep their numbers (tracebacks)


def test_fuzzed_sizes_are_odd_tails_and_small_and_respect_fixed_sizes():
    constants = shapes.size_constants(REFERENCE)
    first, second = shapes.fuzzed(constants, 2, fixed=set())
    assert first == {"batch_size": 33, "dim": 257, "M": 49, "K": 21}
    assert second == {"batch_size": 17, "dim": 17, "M": 17, "K": 17}
    assert all("dim" not in s for s in shapes.fuzzed(constants, 4, fixed={"dim"}))
    assert len(shapes.fuzzed(constants, 4, fixed=set())) == 4


def test_an_assignment_naming_no_constant_is_refused_with_the_constants_listed():
    constants = shapes.size_constants(REFERENCE)
    with pytest.raises(shapes.ShapeInputError, match=r"N is not a module-level size constant .*batch_size=64"):
        shapes.explicit(constants, [{"N": 10}], fixed=set())
    with pytest.raises(shapes.ShapeInputError, match="fixed_sizes"):
        shapes.explicit(constants, [{"dim": 10}], fixed={"dim"})


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_overfit_kernels_are_flagged_and_general_ones_are_not(path: Path):
    result = run_accuracy(
        RunAccuracyRequest(reference=str(path.parent / "reference.py"), candidate=str(path), backend="cpu")
    )
    assert result.verdict == "pass", result.summary  # every one is right at the task's sizes
    assert result.shapes is not None and result.shapes.applicable and len(result.shapes.runs) == 2
    failed = result.shapes.first_failure()
    shape_warnings = [w for w in result.warnings if w.startswith("shape check:")]
    if path.stem.startswith("overfit"):
        assert failed is not None and failed.run_id, result.shapes
        assert shape_warnings and "correct at the task's" in shape_warnings[0], result.warnings
        assert " other size(s); at " in shape_warnings[0] and " stderr:" not in shape_warnings[0]
    else:
        assert failed is None and not shape_warnings, result.shapes
        assert all(r.verdict == "pass" for r in result.shapes.runs)


def test_require_mode_fails_the_run_and_points_explain_at_the_failing_sizes_run():
    folder = CORPUS / "vecadd"
    result = run_accuracy(
        RunAccuracyRequest(
            reference=str(folder / "reference.py"),
            candidate=str(folder / "overfit_even_grid.py"),
            backend="cpu",
            shapes_mode="require",
        )
    )
    assert result.verdict == "fail" and result.summary.startswith("FAIL at N=2049 (shapes_mode=require)")
    failed = result.shapes.first_failure() if result.shapes else None
    assert failed is not None and failed.run_id in (result.next_step or "")
    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    explained = explain_failure(ExplainRequest(run_id=failed.run_id))
    assert explained.verdict == "fail" and explained.diagnoses, explained.summary
    assert explained.diagnoses[0].pattern in ("boundary_mask_error", "unwritten_output"), explained.summary
    # asked about the run itself (right at the task's sizes), explain answers with the failing size's run
    parent = explain_failure(ExplainRequest(run_id=result.run_id))
    assert parent.run_id == failed.run_id and parent.summary.startswith(f"run {result.run_id} is right at"), parent


ASSERTING_REFERENCE = """
import torch
import torch.nn as nn

rows = 32
cols = 256


class Model(nn.Module):
    def forward(self, x):
        assert x.shape[1] % 64 == 0, "cols must be a multiple of 64"
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
"""


def test_a_reference_that_refuses_every_other_size_says_the_check_did_not_run():
    result = run_accuracy(
        RunAccuracyRequest(
            reference=ASSERTING_REFERENCE, candidate=str(CORPUS / "rowsum" / "overfit_fixed_block.py"), backend="cpu"
        )
    )
    assert result.verdict == "pass" and result.shapes is not None
    assert [r.verdict for r in result.shapes.runs] == ["skipped", "skipped"], result.shapes
    assert "multiple of 64" in result.shapes.runs[0].summary
    gap = [w for w in result.warnings if w.startswith("shape check: not run")]
    assert gap and "shapes=[{...}]" in gap[0], result.warnings


def test_no_size_constants_is_not_applicable_and_bad_requests_fail_before_running():
    result = run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=VECTOR_ADD_CANDIDATE, backend="cpu")
    )
    assert result.verdict == "pass" and result.shapes is not None and not result.shapes.applicable
    assert result.shapes.note == "not applicable (no module-level size constants)"
    folder = CORPUS / "vecadd"
    for bad in ({"fixed_sizes": ["n"]}, {"shapes": [{"M": 3}]}):
        with pytest.raises(ToolInputError, match="not a module-level size constant"):
            run_accuracy(
                RunAccuracyRequest(
                    reference=str(folder / "reference.py"), candidate=str(folder / "general.py"), backend="cpu", **bad
                )
            )


def test_progress_rises_to_done_after_the_shape_check():
    """`[100%] done` was reported before `[ 90%] shape check: ...` (the judge said done, then the sizes ran)."""
    relu = Path(__file__).resolve().parents[1] / "examples" / "level1" / "19_relu"
    seen: list[tuple[float, str]] = []
    result = run_accuracy(
        RunAccuracyRequest(
            reference=str(relu / "reference.py"), candidate=str(relu / "candidate.py"), backend="cpu", num_seeds=1
        ),
        progress=lambda value, message="": seen.append((value, message)),
    )
    assert result.verdict == "pass", result.summary
    values = [value for value, _ in seen]
    assert values == sorted(values) and seen[-1] == (1.0, "done"), seen
    assert any(message.startswith("shape check") for _, message in seen), seen
