"""`kernel-eval compare` on real .npy / .npz / .pt files: verdicts, exit codes, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tools.cli import main
from tools.models.compare import CompareFilesRequest
from tools.offline_compare import compare_files


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    golden = rng.standard_normal((32, 48))
    paths = {
        "golden": tmp_path / "golden.npy",
        "good": tmp_path / "good.npy",
        "bad": tmp_path / "bad.npy",
        "cpu": tmp_path / "cpu.npy",
    }
    np.save(paths["golden"], golden)
    np.save(paths["good"], golden.astype(np.float16))
    np.save(paths["cpu"], golden.astype(np.float16))
    bad = golden.astype(np.float16)
    bad[3, 4] += 0.5
    np.save(paths["bad"], bad)
    return tmp_path, paths


def run(capsys, *argv):
    code = main(["compare", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_pass_and_fail_exit_codes(files, capsys):
    _, p = files
    code, out, _ = run(capsys, "--actual", p["good"], "--golden", p["golden"], "--cpu", p["cpu"])
    assert code == 0 and out.startswith("PASS three_dim float16")
    code, out, _ = run(capsys, "--actual", p["bad"], "--golden", p["golden"], "--cpu", p["cpu"])
    assert code == 1 and out.startswith("FAIL") and "(3, 4)" in out


def test_json_is_identical_to_the_function(files, capsys):
    _, p = files
    code, out, _ = run(capsys, "--actual", p["bad"], "--golden", p["golden"], "--cpu", p["cpu"], "--json")
    request = CompareFilesRequest(actual=str(p["bad"]), golden=str(p["golden"]), cpu=str(p["cpu"]))
    assert code == 1
    assert json.loads(out) == json.loads(compare_files(request).model_dump_json())


def test_standards_thresholds_and_compute_num_flags(files, capsys):
    _, p = files
    code, out, _ = run(
        capsys,
        "--actual",
        p["good"],
        "--golden",
        p["golden"],
        "--standard",
        "catlass",
        "--compute-num",
        "4096",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["outputs"][0]["threshold"] == 1 / 128
    code, out, _ = run(
        capsys,
        "--actual",
        p["bad"],
        "--golden",
        p["golden"],
        "--cpu",
        p["cpu"],
        "--thresholds",
        "float16=0.5",
        "--json",
    )
    assert json.loads(out)["outputs"][0]["threshold"] == 0.5


def test_npz_multi_output_and_key(tmp_path, capsys):
    q, k = np.linspace(-1, 1, 10), np.arange(4)
    np.savez(tmp_path / "g.npz", q=q, k=k)
    np.savez(tmp_path / "a.npz", q=q.astype(np.float32), k=k)
    code, out, _ = run(
        capsys, "--actual", tmp_path / "a.npz", "--golden", tmp_path / "g.npz", "--dtype", "float32", "--json"
    )
    data = json.loads(out)
    assert code == 1  # k is int64 but judged as float32: a dtype mismatch for that output
    assert [o["name"] for o in data["outputs"]] == ["output['q']", "output['k']"]
    code, out, _ = run(capsys, "--actual", tmp_path / "a.npz", "--golden", tmp_path / "g.npz", "--key", "q")
    assert code == 0 and "PASS" in out


def test_pt_files_and_bfloat16_dumped_as_float32(tmp_path, capsys):
    golden = torch.randn(16, 16, dtype=torch.float64)
    torch.save(golden, tmp_path / "g.pt")
    torch.save(golden.to(torch.bfloat16), tmp_path / "a.pt")
    np.save(tmp_path / "a32.npy", golden.to(torch.bfloat16).float().numpy())  # numpy has no bf16
    assert run(capsys, "--actual", tmp_path / "a.pt", "--golden", tmp_path / "g.pt")[0] == 0
    code, out, _ = run(capsys, "--actual", tmp_path / "a32.npy", "--golden", tmp_path / "g.pt", "--dtype", "bf16")
    assert code == 0 and "bfloat16" in out


def test_shape_and_dtype_mismatch_are_verdicts(tmp_path, capsys):
    np.save(tmp_path / "g.npy", np.zeros((4, 3)))
    np.save(tmp_path / "t.npy", np.zeros((3, 4), dtype=np.float16))
    np.save(tmp_path / "i.npy", np.zeros((4, 3), dtype=np.int32))
    code, out, _ = run(capsys, "--actual", tmp_path / "t.npy", "--golden", tmp_path / "g.npy")
    assert code == 1 and "shape mismatch" in out
    code, out, _ = run(capsys, "--actual", tmp_path / "i.npy", "--golden", tmp_path / "g.npy", "--dtype", "float16")
    assert code == 1 and "dtype mismatch" in out


def test_empty_and_zero_dim(tmp_path, capsys):
    np.save(tmp_path / "e.npy", np.zeros((0, 3), dtype=np.float32))
    np.save(tmp_path / "s.npy", np.float32(2.5))
    np.save(tmp_path / "sg.npy", np.float64(2.5))
    code, out, _ = run(capsys, "--actual", tmp_path / "e.npy", "--golden", tmp_path / "e.npy")
    assert code == 0 and "0 elements" in out
    assert run(capsys, "--actual", tmp_path / "s.npy", "--golden", tmp_path / "sg.npy")[0] == 0


class Evil:
    def __reduce__(self):
        return (print, ("pickle ran",))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_text("not numpy"), "not an .npy file"),
        (lambda p: np.save(p, np.array([{"a": 1}], dtype=object)), "cannot be read"),
        (lambda p: np.save(p, np.array(["x", "y"])), "unsupported numpy dtype"),
    ],
)
def test_unusable_npy_files_are_usage_errors(tmp_path, capsys, make, message):
    bad = tmp_path / "x.npy"
    make(bad)
    np.save(tmp_path / "g.npy", np.zeros(3))
    code, out, err = run(capsys, "--actual", bad, "--golden", tmp_path / "g.npy")
    assert code == 2 and message in err and "Traceback" not in err and out == ""


def test_pickled_objects_in_pt_are_refused_without_running(tmp_path, capsys):
    torch.save({"x": Evil()}, tmp_path / "evil.pt")
    np.save(tmp_path / "g.npy", np.zeros(3))
    code, out, err = run(capsys, "--actual", tmp_path / "evil.pt", "--golden", tmp_path / "g.npy")
    assert code == 2 and "pickle ran" not in out and "tensors only" in err


def test_usage_errors(files, capsys):
    _, p = files
    assert run(capsys, "--golden", p["golden"])[2].endswith("--actual: required\n")
    code, _, err = run(capsys, "--actual", p["good"], "--golden", p["golden"], "--thresholds", "float16")
    assert code == 2 and "KEY=VALUE" in err
    code, _, err = run(capsys, "--actual", p["good"], "--golden", p["golden"], "--dtype", "float12")
    assert code == 2 and "unknown dtype" in err
    code, _, err = run(capsys, "--actual", p["good"], "--golden", p["golden"], "--compute-num", "zero")
    assert code == 2 and "--compute-num" in err


def test_console_script_end_to_end(files):
    """The installed `kernel-eval` entry point, as a user runs it."""
    _, p = files
    script = Path(sys.executable).parent / "kernel-eval"
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "tools.cli"]
    done = subprocess.run(
        [*exe, "compare", "--actual", p["bad"], "--golden", p["golden"], "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and json.loads(done.stdout)["verdict"] == "fail"
    done = subprocess.run(
        [*exe, "compare", "--actual", "/nonexistent.npy", "--golden", p["golden"]],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "no such file" in done.stderr and "Traceback" not in done.stderr
