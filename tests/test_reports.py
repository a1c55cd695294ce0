"""The typed records of job reports (sandbox/reports.py): what the harness writes fits them, and the
server's parse rejects a report of any other shape with the field it names."""

from __future__ import annotations

import math

import pytest

from sandbox import backends, reports
from sandbox.pool import Pool
from tests.tasks import candidate_with
from tests.test_pool import job

SEED = {"seed": 3, "launches": 1, "forward_s": 0.5, "out_of_bounds_writes": [], "out_of_bounds_reads": []}


def test_a_whole_report_parses_into_its_record():
    raw = {
        "status": "ok",
        "isolation": {"seccomp": {"active": True, "detail": "x"}},
        "seeds": [
            SEED
            | {"mutated_inputs": [1], "out_of_bounds_writes": [{"shape": [4], "bytes_before": 0, "bytes_after": 8}]}
        ],
        "input_guard": "nan",
        "launches": 2,
        "kernels": {"add": 2},
        "determinism": {"checked": True, "bitwise_equal": False, "differing_elements": 3, "max_abs_diff": math.inf},
        "device_time": {"measured": True, "total_us": 10, "triton_us": 4.5, "other": [["copy", 1.5]]},
        "unknown_key": "ignored",
    }
    report = reports.parse(reports.CandidateReport, raw)
    assert report.seeds[0].out_of_bounds_writes[0] == reports.OverrunReport([4], 0, 8)
    assert report.isolation["seccomp"].active and report.determinism.max_abs_diff == math.inf
    assert report.device_time.total_us == 10.0 and isinstance(report.device_time.total_us, float)
    assert report.device_time.other == [("copy", 1.5)] and report.overruns() == 1 and report.margin_reads() == 0
    assert report.provenance is None and report.seeds[0].trace is None


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ({"status": "ok", "launches": True}, "launches: expected an integer, got a boolean"),
        ({"status": "ok", "launches": "7"}, "launches: expected int, got str"),
        ({"status": "done"}, "status: 'done' is not one of"),
        ({"launches": 1}, "the field 'status' is missing"),
        ({"status": "ok", "seeds": [SEED | {"forward_s": None}]}, "seeds[0].forward_s: expected float"),
        ({"status": "ok", "seeds": {"0": SEED}}, "seeds: expected an array, got dict"),
        ({"status": "ok", "kernels": {"add": 1.5}}, "kernels['add']: expected int, got float"),
        ({"status": "ok", "device_time": {"measured": True, "other": [["a"]]}}, "other[0]: expected 2 items"),
        ({"status": "ok", "seeds": [SEED | {"out_of_bounds_reads": [{"bogus": 1}]}]}, "the field 'tensor' is missing"),
        ([], "expected an object, got list"),
    ],
)
def test_a_report_of_another_shape_is_refused_with_the_field_named(raw, named):
    with pytest.raises(reports.ReportError) as caught:
        reports.parse(reports.CandidateReport, raw)
    assert named in str(caught.value)


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    p = Pool(backends.CPU, slots=1, state_dir=tmp_path_factory.mktemp("pool"), queue_limit=1)
    yield p
    p.close()


@pytest.mark.parametrize("body", ["return triton_add(x, y)", "raise ValueError('no')"], ids=["ok", "raised"])
def test_the_harness_writes_what_its_record_says(pool, body):
    result = pool.run(job(candidate_with(body)), timeout_s=60)
    report = reports.parse(reports.CandidateReport, result.meta)  # raises on any drift
    assert report.status == ("ok" if "triton" in body else "user_error")
    assert "record's shape" not in result.stderr
    if report.status == "ok":
        assert report.seeds[0].launches == 1 and report.seeds[0].out_of_bounds_reads == []
    else:
        assert report.error is not None and report.error.type == "ValueError" and report.error.line


def test_a_compile_report_the_harness_never_writes_is_a_malformed_report():
    from tools.compile import compile_kernel
    from tools.models.compile import CompileKernelRequest

    tamper = "import sandbox.harness.compile as c\nc.kernels_in = lambda module: [1]"
    result = compile_kernel(CompileKernelRequest(candidate=candidate_with("return triton_add(x, y)", prelude=tamper)))
    assert result.verdict == "runtime_error" and result.error is not None, result.summary
    assert result.error.type == "malformed_report" and "kernels_defined[0]: expected str" in result.error.message
    honest = compile_kernel(CompileKernelRequest(candidate=candidate_with("return triton_add(x, y)")))
    assert honest.verdict == "ok" and honest.kernels_defined, honest.summary
