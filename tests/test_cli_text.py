"""What the commands print in text mode reads coherently for a user: real runs on the cpu backend."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp_server import text as mcp_text
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools.cli import main
from tools.models.accuracy import RunAccuracyResult

ROOT = Path(__file__).resolve().parents[1]
MASKED_STORE = "tl.store(out_ptr + offsets, x + y, mask=mask)"
# No store mask and a grid that rounds up (cdiv(1000, 256) blocks): the last block stores 24 floats past the end.
UNMASKED_STORE = VECTOR_ADD_CANDIDATE.replace(MASKED_STORE, "tl.store(out_ptr + offsets, x + y)")


def test_seed_lines_of_an_out_of_bounds_write_say_why_the_run_fails(tmp_path, capsys):
    assert UNMASKED_STORE != VECTOR_ADD_CANDIDATE
    (tmp_path / "reference.py").write_text(VECTOR_ADD_REFERENCE)
    (tmp_path / "candidate.py").write_text(UNMASKED_STORE)
    argv = ["run", "--reference", str(tmp_path / "reference.py"), "--candidate", str(tmp_path / "candidate.py")]
    argv += ["--backend", "cpu", "--seeds", "1,2", "--determinism", "off"]
    assert main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL out_of_bounds_write")
    seed_lines = [line for line in lines if line.startswith("  seed ")]
    assert len(seed_lines) == 2
    run_id = next(line for line in lines if line.startswith("  run_id ")).split()[1]
    assert f"  on the command line: kernel-eval explain {run_id}" in lines  # the next step, as a command
    for line in seed_lines:  # each says it fails and why, then what the comparator alone said
        verdict = line.split(": ", 1)[1]
        assert verdict.startswith("FAIL out_of_bounds_write: 96 byte(s) past the end of a (1000,) output;"), line
        assert "the values alone: PASS three_dim" in verdict

    assert main([*argv, "--json"]) == 1
    result = RunAccuracyResult.model_validate_json(capsys.readouterr().out)
    block = mcp_text.run_accuracy(result).splitlines()
    assert block[1] == (
        "seeds: 2 pass, 0 fail; but on 2 of them (1, 2) a store went past an output's end, which fails the run"
    )


def test_seed_lines_of_a_passing_run_are_the_comparators(tmp_path, capsys):
    (tmp_path / "reference.py").write_text(VECTOR_ADD_REFERENCE)
    (tmp_path / "candidate.py").write_text(VECTOR_ADD_CANDIDATE)
    argv = ["run", "--reference", str(tmp_path / "reference.py"), "--candidate", str(tmp_path / "candidate.py")]
    assert main([*argv, "--backend", "cpu", "--seeds", "1,2", "--determinism", "off"]) == 0
    seed_lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  seed ")]
    assert len(seed_lines) == 2 and all(line.split(": ", 1)[1].startswith("PASS three_dim") for line in seed_lines)


def test_batch_names_candidates_by_their_path_whatever_the_suffix(tmp_path, capsys, monkeypatch):
    from tools.batch import compact, run_batch
    from tools.cli.batch import read_manifest

    monkeypatch.chdir(tmp_path)
    (tmp_path / "reference.py").write_text(VECTOR_ADD_REFERENCE)
    (tmp_path / "kernel.py").write_text(VECTOR_ADD_CANDIDATE)
    (tmp_path / "kernel_v2.txt").write_text(VECTOR_ADD_CANDIDATE)  # refused (not .py), but named by its file
    common = {"reference": "reference.py", "backend": "cpu", "seeds": [1], "determinism": "off"}
    lines = [common | {"candidate": c} for c in ("kernel.py", "kernel_v2.txt", VECTOR_ADD_CANDIDATE)]
    manifest = tmp_path / "batch.jsonl"
    manifest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["batch", str(manifest)]) == 1
    rows = capsys.readouterr().out.splitlines()
    header = rows[0]
    start = header.index("candidate")
    names = [row[start:].split("  ")[0] for row in rows[1:4]]
    assert names == ["kernel.py", "kernel_v2.txt", "candidate[2]"]  # candidate[i] only for source text

    requests = read_manifest(str(manifest))
    batch = compact(run_batch(requests), requests)  # what the MCP tool returns names them the same way
    assert [c.candidate for c in batch.candidates] == names


def test_explain_labels_the_precision_fingerprint(capsys):
    task = ROOT / "examples" / "level1" / "01_square_matmul"
    argv = [
        "run",
        "--reference",
        str(task / "reference.py"),
        "--candidate",
        str(task / "candidate_fp16_accumulator.py"),
    ]
    assert main([*argv, "--backend", "cpu", "--seeds", "1", "--determinism", "off", "--json"]) == 1
    run_id = RunAccuracyResult.model_validate_json(capsys.readouterr().out).run_id
    assert main(["explain", "--run", run_id, "--no-heatmap"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  precision fingerprint"))
    assert "as MERE (mean relative error" in lines[start] and "closest first" in lines[start]
    # one emulated precision model a line, each with its labelled number: no bare "32 0" (block size, MERE)
    # closest: the emulation of the bug itself. Bit-identical where torch and the interpreter's numpy share a
    # BLAS kernel (AVX-512); a few fp16 ulps apart elsewhere (an AVX2 machine's kernel sums each block in
    # another order: MERE 5.3e-08 measured), far below the next model's
    closest = re.fullmatch(
        r"    - fp16 accumulator between K-blocks of 32: MERE (0 \(identical\)|\S+)", lines[start + 1]
    )
    assert closest is not None, lines[start + 1]
    assert closest[1].startswith("0 ") or float(closest[1]) < 1e-6, lines[start + 1]
    assert all(re.fullmatch(r"    - [^:]+: MERE \d\.?\d*(e-\d+)?", line) for line in lines[start + 2 : start + 4])

    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    block = mcp_text.explain_failure(explain_failure(ExplainRequest(run_id=run_id, heatmap=False)))
    line = next(x for x in block.splitlines() if x.startswith("precision fingerprint"))
    assert f"fp16 accumulator between K-blocks of 32: MERE {closest[1]}" in line  # the MCP text block: numbers too


def test_the_measured_line_shows_the_counts_a_fix_removed():
    from tools.models.diagnosis import Verification

    nan_fix = Verification(
        verdict="pass",
        summary="",
        run_id="r",
        before={"mere": 0, "mare": 0, "nan_mismatches": 1331},
        after={"mere": 3.89e-8, "mare": 1.47e-7, "nan_mismatches": 0},
    )
    assert nan_fix.describe() == "MERE 0 -> 3.89e-08, MARE 0 -> 1.47e-07, NaN mismatches 1331 -> 0 (pass)"
    quiet = Verification(
        verdict="pass",
        summary="",
        run_id="r",
        before={"mere": 1e-3, "nan_mismatches": 0, "out_of_bounds_reads": 2070.0},
    )
    assert quiet.describe() == "MERE 0.001 -> ?, elements read out of bounds 2070 -> ? (pass)"  # counts as integers


def test_the_text_views_leave_out_what_tells_nothing():
    """A fingerprint whose emulations all sit at the same MERE, and a search that found nothing beside an
    experiment that decided: kept in the JSON, left out of the text."""
    from tools.models.diagnosis import ExperimentOutcome, ExplainResult, PrecisionModel
    from tools.models.task import Timings

    flat = [PrecisionModel(model=m, mere_vs_candidate=1.1e-6) for m in ("exact", "tf32", "tf32 truncated")]
    apart = [
        PrecisionModel(model="fp16 acc", mere_vs_candidate=0.0),
        PrecisionModel(model="fp32", mere_vs_candidate=3e-3),
    ]
    search = ExperimentOutcome(id="repair_search", question="?", finding="no single-site edit passes")
    decided = ExperimentOutcome(id="mask", question="?", finding="tail unwritten", confirms=["boundary_mask_error"])
    base = {
        "run_id": "r",
        "verdict": "fail",
        "summary": "s",
        "diagnoses": [],
        "timings": Timings(total_s=0),
        "next_step": "",
    }
    result = ExplainResult(**base, fingerprint=flat, experiments=[search, decided])
    assert not result.fingerprint_tells() and result.decisive_experiments() == [decided]
    result = ExplainResult(**base, fingerprint=apart, experiments=[search])
    assert result.fingerprint_tells() and result.decisive_experiments() == [search]  # nothing decided: all shown


def test_a_reader_that_stops_reading_gets_no_traceback():
    """`kernel-eval thresholds | head -1`: the CLI's writes to a pipe nobody reads end it quietly (exit 141)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the CLI writes
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tools.cli", "thresholds"],
            cwd=root,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141 and b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]


def test_a_next_step_naming_a_tool_call_is_also_shown_as_its_command(capsys):
    from tools.cli.commands import _print_command_hint

    _print_command_hint("call suggest_fix(run_id='r-1', verify=true) for boundary_mask", "r-1")
    _print_command_hint("passes; read `warnings` for latent defects, then optimise", "r-1")
    _print_command_hint("call benchmark_kernel(run_id) to time it", "r-1")  # bench takes files positionally
    assert capsys.readouterr().out == "  on the command line: kernel-eval fix r-1 --verify\n"


def test_explain_says_where_in_the_cli_as_in_the_mcp_text(capsys):
    """The MCP text had a `where: file:line: code` line that the CLI's explain left out."""
    from tools.cli.commands import _print_explain
    from tools.models.diagnosis import Diagnosis, ExplainResult, Location
    from tools.models.task import Timings

    where = Location.at_line("candidate.py", 2, "a = 1\nb = x / BLOCK\n")
    primary = Diagnosis(pattern="formula_error", confidence=0.9, summary="s", location=where, tested="confirmed")
    result = ExplainResult(
        run_id="r", verdict="fail", summary="s", diagnoses=[primary], timings=Timings(total_s=0), next_step="n"
    )
    _print_explain(result)
    assert "  where: candidate.py:2: b = x / BLOCK" in capsys.readouterr().out.splitlines()
    assert "where: candidate.py:2: b = x / BLOCK" in mcp_text.explain_failure(result).splitlines()
