"""The correct kernels the mutation corpus is generated from: each passes every input profile its manifest
entry lists, on the cpu backend, and explain_failure finds nothing wrong with it.

A mutant is only meaningful against an original that passes where the mutant is run, so these are the
corpus's ground truth: a failure here means a kernel, a task or a threshold changed, not a mutant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mutation_corpus.runner import SEEDS
from tools.accuracy import run_accuracy
from tools.compile import compile_kernel
from tools.diagnosis import explain_failure
from tools.models.accuracy import RunAccuracyRequest
from tools.models.compile import CompileKernelRequest
from tools.models.diagnosis import ExplainRequest

KERNELS = Path(__file__).resolve().parent / "mutation_corpus" / "kernels"
MANIFEST = json.loads((KERNELS / "manifest.json").read_text())
FAMILIES = {"elementwise", "reduction", "scan", "norm", "softmax", "matmul", "attention", "quantize", "layout"}
FALSE_DIAGNOSIS_CONFIDENCE = 0.5

CASES = [(entry, profile) for entry in MANIFEST for profile in entry["profiles"]]


def case_id(case) -> str:
    entry, profile = case
    extra = f"[{profile['value_range'][0]:g},{profile['value_range'][1]:g}]" if profile.get("value_range") else ""
    return f"{entry['name']}/{profile['input_profile']}{extra}"


def test_manifest_matches_the_folders():
    names = [entry["name"] for entry in MANIFEST]
    assert len(names) == len(set(names)), "duplicate kernel names in the manifest"
    folders = sorted(p.name for p in KERNELS.iterdir() if p.is_dir() and not p.name.startswith("__"))
    assert sorted(names) == folders
    for entry in MANIFEST:
        assert entry["family"] in FAMILIES, entry["name"]
        assert entry["output_dtypes"] and entry["profiles"], entry["name"]
        assert {"input_profile": "task"} in entry["profiles"], f"{entry['name']}: every kernel passes its own task"
        for name in ("reference.py", "candidate.py"):
            assert (KERNELS / entry["name"] / name).is_file()


def test_corpus_covers_every_family():
    assert {entry["family"] for entry in MANIFEST} == FAMILIES
    assert len(MANIFEST) >= 15


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_correct_kernel_passes_and_is_not_diagnosed(case):
    entry, profile = case
    folder = KERNELS / entry["name"]

    def run(normal_range: str = "absolute"):
        return run_accuracy(
            RunAccuracyRequest(
                reference=str(folder / "reference.py"),
                candidate=str(folder / "candidate.py"),
                backend="cpu",
                input_profile=profile["input_profile"],
                value_range=profile.get("value_range"),
                seeds=SEEDS,
                normal_range=normal_range,
            )
        )  # the corpus's pinned seeds: the mutants are judged on the same inputs

    result = run()
    explained = explain_failure(ExplainRequest(run_id=result.run_id, heatmap=False))
    found = [d.pattern for d in explained.diagnoses if d.confidence >= FALSE_DIAGNOSIS_CONFIDENCE]
    if result.verdict == "fail" and found == ["threshold_too_strict"]:
        # Where the CPU same-precision control fails the normal range too, the absolute threshold can
        # fail a correct kernel on one machine and not another: matmul_fp16 on cancelling data sums in
        # fp32 in an order set by the CPU's BLAS kernel (MARE 0.012 against 0.00977 on AVX2, below it on
        # AVX-512; the fp16 CPU control 0.03 on both). Correct there means: explained as the threshold,
        # and within the CPU control's own error.
        result = run("cpu_relative")
        found = []
    assert result.verdict == "pass", result.summary
    assert [out.dtype for out in result.seeds[0].outputs] == entry["output_dtypes"]
    assert result.checks.kernel_launches > 0
    assert found == []


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["name"] for e in MANIFEST])
def test_correct_kernel_compiles_for_sm90(entry):
    """The interpreter accepts more than the compiler: the offline sm_90 front end must take every kernel,
    so the corpus also runs on a GPU."""
    folder = KERNELS / entry["name"]
    result = compile_kernel(
        CompileKernelRequest(
            candidate=str(folder / "candidate.py"), reference=str(folder / "reference.py"), backend="cpu"
        )
    )
    assert result.ok, result.summary
    assert result.kernels and all(k.compiled for k in result.kernels)
