"""Command-line flags generated from the request models: lists, mappings, paths, help."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools.cli import build_parser, main
from tools.cli.args import UsageError, model_from_args
from tools.models.accuracy import RunAccuracyRequest
from tools.models.compare import CompareFilesRequest


def parse(model, *argv):
    command = {RunAccuracyRequest: "run", CompareFilesRequest: "compare"}[model]
    return model_from_args(model, build_parser().parse_args([command, *argv]))


def test_seeds_take_a_comma_list_repeated_flags_or_both():
    base = ["--reference", "r.py", "--candidate", "c.py"]
    assert parse(RunAccuracyRequest, *base, "--seeds", "1,2").seeds == [1, 2]
    assert parse(RunAccuracyRequest, *base, "--seeds", "1", "--seeds", "2").seeds == [1, 2]
    assert parse(RunAccuracyRequest, *base, "--seeds", "1, 2", "--seeds", "7").seeds == [1, 2, 7]
    with pytest.raises(UsageError, match="values separated by commas"):
        parse(RunAccuracyRequest, *base, "--seeds", "1,,2")


def test_thresholds_take_key_value_or_json_as_the_help_says(capsys):
    base = ["--actual", "a.npy", "--golden", "g.npy"]
    assert parse(CompareFilesRequest, *base, "--thresholds", "float16=0.002").thresholds == {"float16": 0.002}
    assert parse(CompareFilesRequest, *base, "--thresholds", '{"float16": 0.002, "bfloat16": 0.01}').thresholds == {
        "float16": 0.002,
        "bfloat16": 0.01,
    }
    assert parse(
        CompareFilesRequest, *base, "--thresholds", '{"float16": 0.002}', "--thresholds", "float32=0.001"
    ).thresholds == {"float16": 0.002, "float32": 0.001}
    with pytest.raises(UsageError, match="not a valid JSON object"):
        parse(CompareFilesRequest, *base, "--thresholds", "{float16: 0.002}")
    with pytest.raises(UsageError, match="KEY=VALUE or a JSON object"):
        parse(CompareFilesRequest, *base, "--thresholds", "float16")
    assert main(["compare", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert '{"float16": 0.002}' in help_text and "KEY=VALUE (repeatable) or one JSON object" in help_text


def test_thresholds_as_json_judge_like_key_value(tmp_path, capsys):
    golden = np.linspace(1, 2, 64)
    np.save(tmp_path / "g.npy", golden)
    np.save(tmp_path / "a.npy", (golden * 1.0015).astype(np.float16))
    argv = ["compare", "--actual", str(tmp_path / "a.npy"), "--golden", str(tmp_path / "g.npy"), "--json"]
    strict = main(argv)
    capsys.readouterr()
    as_json = main([*argv, "--thresholds", '{"float16": 0.004}'])
    out_json = json.loads(capsys.readouterr().out)
    as_pair = main([*argv, "--thresholds", "float16=0.004"])
    out_pair = json.loads(capsys.readouterr().out)
    assert (strict, as_json, as_pair) == (1, 0, 0) and out_json == out_pair


@pytest.mark.parametrize("command", ["run", "compile"])
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d, "is a directory, not a .py file"),
        (lambda d: d / "notes.txt", "is not a .py file"),
        (lambda d: d / "missing" / "kernel", "no such file"),
    ],
)
def test_a_path_that_is_not_a_py_file_is_a_clear_error(tmp_path, capsys, command, make, message):
    (tmp_path / "notes.txt").write_text(VECTOR_ADD_CANDIDATE)
    reference = tmp_path / "reference.py"
    reference.write_text(VECTOR_ADD_REFERENCE)
    code = main([command, "--reference", str(reference), "--candidate", str(make(tmp_path)), "--backend", "cpu"])
    err = capsys.readouterr().err
    assert code == 2 and f"kernel-eval {command}: error: candidate: " in err and message in err
    assert "Traceback" not in err


def test_a_relative_path_that_does_not_exist_names_the_directory_it_resolved_against(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["compile", "--candidate", "kernels/mine.py", "--backend", "cpu"])
    err = capsys.readouterr().err
    assert code == 2 and f"relative paths resolve against {tmp_path}" in err


@pytest.mark.parametrize(
    ("command", "unknown"),
    # explain's RUN_ID may be positional: there `ref.py` is taken for it, and only the flags are unknown
    [("explain", "--reference --bogus"), ("run", "--bogus"), ("thresholds", "--reference ref.py --bogus")],
)
def test_an_unknown_flag_is_reported_with_its_commands_usage(capsys, command, unknown):
    # explain takes a run id, not the task's files: a user who passes them must see explain's own usage
    code = main([command, "--reference", "ref.py", "--bogus"])
    err = capsys.readouterr().err
    assert code == 2 and f"usage: kernel-eval {command}" in err
    assert f"kernel-eval {command}: error: unrecognized arguments: {unknown}\n" in err


def test_files_and_run_ids_may_be_given_as_positional_arguments(capsys):
    """`kernel-eval run reference.py candidate.py` and `kernel-eval explain RUN_ID` as an agent first types them."""
    request = parse(RunAccuracyRequest, "r.py", "c.py", "--num-seeds", "2")
    assert (request.reference, request.candidate, request.num_seeds) == ("r.py", "c.py", 2)
    assert parse(RunAccuracyRequest, "r.py", "--candidate", "c.py").candidate == "c.py"
    with pytest.raises(UsageError, match="REFERENCE given twice"):
        parse(RunAccuracyRequest, "r.py", "c.py", "--reference", "other.py")
    from tools.models.diagnosis import ExplainRequest

    explain = model_from_args(ExplainRequest, build_parser().parse_args(["explain", "r-1", "--no-experiments"]))
    assert (explain.run_id, explain.experiments) == ("r-1", False)
    with pytest.raises(SystemExit):  # a third positional is argparse's usage error
        build_parser().parse_args(["run", "r.py", "c.py", "x.py"])
    assert "unrecognized arguments: x.py" in capsys.readouterr().err
