"""A mixed batch for the batch tests and benchmarks: every verdict (pass, fail, crashed, timeout,
rejected, runtime_error, compile_error) and a request that cannot run, over two tasks, and the
results of running each request alone, computed once per test session."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.accuracy import run_accuracy
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest

RELU = Path(__file__).resolve().parents[1] / "examples" / "level1" / "19_relu"
SEEDS = [11, 12]

#: (what it should get, candidate, extra request fields)
CASES = [
    ("pass", VECTOR_ADD_CANDIDATE, {}),
    ("fail", VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x - y, mask=mask"), {}),
    ("rejected", candidate_with("return x + y"), {}),
    ("runtime_error", candidate_with("raise ValueError('boom')"), {}),
    ("compile_error", "def broken(:\n" + VECTOR_ADD_CANDIDATE, {}),
    ("crashed", candidate_with("import ctypes\nctypes.string_at(0)\nreturn triton_add(x, y)"), {}),
    ("timeout", candidate_with("while True:\n    pass"), {"timeout_s": 3}),
    ("pass", str(RELU / "candidate.py"), {"reference": str(RELU / "reference.py")}),
    ("rejected", str(RELU / "candidate_torch_op.py"), {"reference": str(RELU / "reference.py")}),
    ("rejected", str(RELU / "candidate_inplace.py"), {"reference": str(RELU / "reference.py")}),
    ("pass", VECTOR_ADD_CANDIDATE, {"determinism": "require"}),
    ("fail", candidate_with("return triton_add(x, y) * 1.01"), {}),
    ("pass", VECTOR_ADD_CANDIDATE, {"seeds": None, "num_seeds": 2}),  # secret seeds, drawn
    ("error:input", str(RELU / "no_such_candidate.py"), {}),
]


def requests(backend: str = "cpu") -> list[RunAccuracyRequest]:
    out = []
    for _, candidate, extra in CASES:
        fields = {"reference": VECTOR_ADD_REFERENCE, "backend": backend, "timeout_s": 30, "determinism": "off"}
        fields |= {"seeds": SEEDS, "candidate": candidate} | extra
        out.append(RunAccuracyRequest.model_validate(fields))
    return out


def expected() -> list[str]:
    return [verdict for verdict, _, _ in CASES]


@functools.cache
def single_results(backend: str = "cpu") -> tuple:
    """Each request through run_accuracy alone: its result, or the ToolInputError message."""
    out = []
    for request in requests(backend):
        try:
            out.append(run_accuracy(request))
        except ToolInputError as exc:
            out.append(str(exc))
    return tuple(out)


def comparable(result) -> dict:
    """What a batch must reproduce: everything but the run_id and the timings."""
    if isinstance(result, str):
        return {"error": result}
    data = result.model_dump(mode="json", exclude={"run_id", "timings"})
    # which mechanisms were active; their details name the slot's uid and its zygote's size
    data["isolation"] = {name: item["active"] for name, item in data["isolation"].items()}
    for seed in data["seeds"]:
        seed.pop("forward_s", None)
    device_time = (data.get("checks") or {}).get("device_time")
    if device_time:  # cuda: the profiler's microseconds of one forward are a measurement, not a result
        data["checks"]["device_time"] = {"measured": device_time["measured"]}
    if data.get("shapes"):  # each size's run: its own run_id and secret seed
        data["shapes"]["runs"] = [(r["sizes"], r["verdict"]) for r in data["shapes"]["runs"]]
    # cuda: the device-time share is measured by the profiler (44% in one run, 49% in the next: near its 50%
    # threshold the warning comes and goes), not a result
    data["warnings"] = [w for w in data.get("warnings", []) if "device time is in its Triton kernels" not in w]
    # a failing size's run_id is quoted in the warnings and the next step
    data = json.loads(re.sub(r"r-\d{8}-\d{6}-[0-9a-f]+", "r-ID", json.dumps(data)))
    if data["verdict"] == "timeout":  # where a loop was when its time ran out is a sample, not a result
        data["summary"] = data["summary"].split("; it was at")[0]
        data["error"] = {k: data["error"][k] for k in ("phase", "type", "hint")}
    if data["seeds"] and result.seeds and len(data["seeds"]) and not _pinned(result):
        data.pop("seeds")  # drawn seeds differ from call to call; their verdict must not
        data.pop("summary")
        data.pop("warnings")
    return data


def _pinned(result) -> bool:
    return [s.seed for s in result.seeds] == SEEDS


def assert_same_as_single(items, backend: str = "cpu") -> None:
    singles = single_results(backend)
    assert [i.index for i in items] == list(range(len(singles)))
    for item, single in zip(items, singles, strict=True):
        got = item.result if item.result is not None else (item.error.message if item.error else None)
        a, b = comparable(got), comparable(single)
        differ = {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
        assert not differ, f"request {item.index}: batch vs single differ in {str(differ)[:1500]}"
    assert [i.verdict for i in items] == expected()
