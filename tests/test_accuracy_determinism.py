"""run_accuracy's `determinism: off | warn | require`, on a real kernel through the sandbox."""

from __future__ import annotations

import pytest

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.accuracy import run_accuracy
from tools.cli import main as cli
from tools.models.accuracy import RunAccuracyRequest

# The judged forward is exact; every later call (the determinism re-run) perturbs y by a few ulps,
# as a split-K kernel whose atomics land in another order would.
NONDETERMINISTIC = candidate_with(
    """
CALLS[0] += 1
if CALLS[0] == 1:
    return triton_add(x, y)
return triton_add(x, y * (1 + 2**-20))
""",
    prelude="CALLS = [0]",
)


def run(candidate, **options):
    request = RunAccuracyRequest(
        reference=VECTOR_ADD_REFERENCE, candidate=candidate, backend="cpu", num_seeds=1, **options
    )
    return run_accuracy(request)


def test_warn_is_the_default_and_passes_with_a_warning():
    r = run(NONDETERMINISTIC)
    assert r.verdict == "pass" and r.checks.determinism.bitwise_equal is False
    assert any(w.startswith("nondeterministic: re-running seed") for w in r.warnings)


def test_require_fails_a_nondeterministic_kernel():
    r = run(NONDETERMINISTIC, determinism="require")
    assert r.verdict == "fail"
    assert r.summary.startswith("FAIL (determinism='require') nondeterministic: re-running seed")
    assert "every seed passes the comparator" in r.summary and all(s.passed for s in r.seeds)


def test_require_passes_a_deterministic_kernel_and_off_skips_the_rerun():
    assert run(VECTOR_ADD_CANDIDATE, determinism="require").verdict == "pass"
    off = run(NONDETERMINISTIC, determinism="off")
    assert off.verdict == "pass" and off.checks.determinism is None
    assert off.checks.kernel_launches == 1  # no re-run


def test_the_deprecated_boolean_maps_onto_the_mode():
    base = {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE}
    assert RunAccuracyRequest(**base).determinism == "warn"
    assert RunAccuracyRequest(**base, determinism_check=False).determinism == "off"
    assert RunAccuracyRequest(**base, determinism_check=True).determinism == "warn"
    assert RunAccuracyRequest(**base, determinism_check=True, determinism="require").determinism == "require"
    with pytest.raises(ValueError, match="contradicts determinism='require'"):
        RunAccuracyRequest(**base, determinism_check=False, determinism="require")


def test_cli_flag(tmp_path, capsys):
    reference, candidate = tmp_path / "reference.py", tmp_path / "candidate.py"
    reference.write_text(VECTOR_ADD_REFERENCE)
    candidate.write_text(NONDETERMINISTIC)
    code = cli(
        [
            "run",
            "--reference",
            str(reference),
            "--candidate",
            str(candidate),
            "--backend",
            "cpu",
            "--num-seeds",
            "1",
            "--determinism",
            "require",
        ]
    )
    assert code == 1 and "FAIL (determinism='require')" in capsys.readouterr().out
    code = cli(["run", "--reference", str(reference), "--candidate", str(candidate), "--determinism", "always"])
    assert code == 2 and "off" in capsys.readouterr().err


def test_nondeterminism_without_atomics_is_not_offered_a_fixed_order_reduction():
    """deterministic_reduction replaces atomics: a kernel without any gets the evidence, not that fix."""
    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    r = run(NONDETERMINISTIC, determinism="require")
    explained = explain_failure(ExplainRequest(run_id=r.run_id, heatmap=False, experiments=False))
    found = next(d for d in explained.diagnoses if d.pattern == "nondeterminism")
    assert found.suggested_fixes == [] and "the source has no atomics" in found.summary
