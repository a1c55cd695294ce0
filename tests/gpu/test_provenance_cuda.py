"""Output provenance and the device-time share on cuda (the stores nudged in the compiled kernels' IR;
sandbox/harness/provenance.py CompiledStoreNudge, device_time.py), and the exploit corpus there."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.test_exploits import KNOWN_FALSE_PASSES
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

EXPLOITS = Path(__file__).resolve().parents[2] / "benchmarks" / "exploits"
#: Caught on cpu but not on cuda, with why: none known.
CUDA_ONLY_FALSE_PASSES: set[str] = set()


def _run(name: str, **options):
    return run_accuracy(
        RunAccuracyRequest(
            reference=(EXPLOITS / "reference.py").read_text(),
            candidate=(EXPLOITS / f"{name}.py").read_text(),
            backend="cuda",
            timeout_s=180,
            **({"num_seeds": 3} | options),
        )
    )


def test_honest_kernel_output_depends_on_its_nudged_stores_and_takes_the_device_time():
    result = _run("honest")
    assert result.verdict == "pass", result.summary
    prov = result.checks.provenance
    assert prov is not None and prov.checked, prov
    assert prov.nudged_store_sites and prov.dependent_elements == prov.output_elements == 4099
    device = result.checks.device_time
    print(device)
    assert device is not None and device.measured and device.triton_share is not None, device
    assert device.triton_share > 0.9, device  # one Triton kernel; the harness's fills are left out
    assert not any("device time" in w for w in result.warnings), result.warnings


def test_hidden_torch_with_a_token_kernel_is_rejected_and_its_device_time_is_elsewhere():
    result = _run("hidden_torch_token")
    assert result.verdict == "rejected" and result.error is not None, result.summary
    assert result.error.type == "output_not_from_kernels", result.summary
    device = result.checks.device_time
    print(device)
    assert device is not None and device.measured and device.triton_share is not None and device.triton_share < 0.5


def test_nudged_binaries_never_reach_the_plain_forward():
    """The nudged compile goes to its own caches: a second run of the same candidate (warm Triton cache,
    same process pool) still passes bit for bit against its golden, and its provenance holds again."""
    first, second = _run("honest", seeds=[11, 12, 13]), _run("honest", seeds=[11, 12, 13])  # the same inputs
    assert first.verdict == second.verdict == "pass", (first.summary, second.summary)
    assert first.seeds[0].outputs[0].mere == second.seeds[0].outputs[0].mere
    assert second.checks.provenance is not None and second.checks.provenance.dependent_elements == 4099


@pytest.mark.parametrize(
    "path", sorted(p for p in EXPLOITS.glob("*.py") if p.stem != "reference"), ids=lambda p: p.stem
)
def test_exploit_verdict_on_cuda(path: Path):
    result = _run(path.stem)
    passes = result.verdict == "pass"
    if path.stem == "honest":
        assert passes, result.summary
    else:
        expected = path.stem in KNOWN_FALSE_PASSES | CUDA_ONLY_FALSE_PASSES
        assert passes == expected, f"{path.stem}: {result.summary}"
