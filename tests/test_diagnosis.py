"""explain_failure and suggest_fix: the labelled corpus, the fingerprint, the heatmap, the patches, the CLI."""

from __future__ import annotations

import json
import struct
import zlib

import pytest
import torch

from tests.diagnosis_corpus.runner import entries, run_entry
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools.accuracy import run_accuracy
from tools.cli import main as cli
from tools.diagnosis import explain_failure
from tools.diagnosis.fingerprint import _round_mantissa, matmul_models
from tools.errors import ToolInputError
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest, FixRequest
from tools.repair.registry import patch
from tools.services import services


@pytest.mark.parametrize("entry", entries("cpu"), ids=lambda e: f"{e['task'].split('/')[-1]}/{e['buggy']}")
def test_corpus_entry_is_judged_diagnosed_and_fixed(entry):
    outcome = run_entry(entry, "cpu")
    assert outcome.verdict == entry["verdict"] and outcome.fixed_verdict == "pass"
    assert outcome.pattern == entry["pattern"], outcome
    assert not outcome.false_diagnoses, f"the corrected twin was diagnosed with {outcome.false_diagnoses}"
    if entry["patchable"]:
        assert entry["fix"] in outcome.verified_fixes, outcome


def test_fingerprint_names_tf32_and_fp16_accumulation():
    gen = torch.Generator().manual_seed(0)
    a, b = torch.rand(64, 256, generator=gen), torch.rand(256, 64, generator=gen)
    tf32 = _round_mantissa(a, 10).double() @ _round_mantissa(b, 10).double()
    assert matmul_models(a, b, tf32.float(), "")[0].model.startswith("tf32")
    a16, b16 = a.half(), b.half()
    acc = torch.zeros(64, 64, dtype=torch.float16)
    for k in range(0, 256, 32):
        acc = (acc.float() + (a16[:, k : k + 32].float() @ b16[k : k + 32].float()).half().float()).half()
    ranked = matmul_models(a16, b16, acc, "BLOCK_K = 32")
    assert ranked[0].model == "fp16 accumulator between K-blocks of 32" and float(ranked[0].mere_vs_candidate) == 0.0


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    # every chunk's CRC is right
    pos = 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos : pos + 4])[0]
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        assert (
            struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0] == zlib.crc32(kind + body) & 0xFFFFFFFF
        )
        pos += 12 + length
    return width, height


def test_heatmap_is_a_valid_png_kept_with_the_run():
    bad = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x + y * 1.5, mask=mask")
    run = run_accuracy(RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=bad, backend="cpu", num_seeds=1))
    explained = explain_failure(ExplainRequest(run_id=run.run_id))
    assert explained.heatmap == f"kernel-eval://runs/{run.run_id}/heatmap.png"
    data = (services().runs.path(run.run_id) / "heatmap.png").read_bytes()
    width, height = _png_size(data)
    assert width >= 256 and height >= 1


def test_unknown_run_id_is_a_clear_error():
    with pytest.raises(ToolInputError, match="unknown run_id"):
        explain_failure(ExplainRequest(run_id="r-20200101-000000-abcdef"))
    with pytest.raises(ToolInputError, match="not a run id"):
        suggest_fix(FixRequest(run_id="../../x"))


def test_passing_correct_run_gets_no_diagnosis_and_no_fix():
    run = run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", num_seeds=1)
    )
    assert explain_failure(ExplainRequest(run_id=run.run_id)).diagnoses == []
    assert suggest_fix(FixRequest(run_id=run.run_id)).fixes == []


def test_patches_leave_unrelated_code_alone_and_skip_what_is_absent():
    assert patch("kahan_summation", VECTOR_ADD_CANDIDATE) is None
    assert patch("cast_round_mode_rint", VECTOR_ADD_CANDIDATE) is None
    assert patch("ieee_dot_precision", VECTOR_ADD_CANDIDATE) is None
    assert patch("boundary_mask", "def broken(:\n") is None
    kahan = patch("kahan_summation", open("examples/level1/06_matmul_large_k/candidate.py").read())
    assert "acc_comp = tl.zeros_like(acc)" in kahan and "acc_comp = (_t - acc) - _y" in kahan
    compile(kahan, "kahan.py", "exec")


def test_cli_explain_and_fix(capsys):
    bad = VECTOR_ADD_CANDIDATE.replace(
        "tl.store(out_ptr + offsets, x + y, mask=mask)", "tl.store(out_ptr + offsets, x + y)"
    )
    bad = bad.replace("(triton.cdiv(n, 256),)", "(n // 256,)")
    run = run_accuracy(RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=bad, backend="cpu", num_seeds=1))
    assert run.verdict == "fail"
    assert cli(["explain", "--run", run.run_id]) == 0
    assert capsys.readouterr().out.startswith("unwritten_output")
    assert cli(["fix", "--run", run.run_id, "--verify", "--json"]) == 0
    fixes = json.loads(capsys.readouterr().out)["fixes"]
    assert fixes[0]["fix"] == "boundary_mask" and fixes[0]["verified"] and "triton.cdiv" in fixes[0]["patch"]
