"""A job's result through shared memory (sandbox/result_channel.py): read in place, sealed first, and
safe against a job that keeps the file open, truncates it or seals it itself."""

from __future__ import annotations

import fcntl
import mmap
import os

import pytest
import torch

from sandbox import backends, result_channel, tensorio
from sandbox.harness import common
from sandbox.pool import Pool
from tests.tasks import candidate_with
from tests.test_pool import job

pytestmark = pytest.mark.skipif(not result_channel.available(), reason="no memfd sealing on this system")


def _written(channel: result_channel.ResultChannel, values: dict, meta: dict | None = None) -> int:
    size = tensorio.write_bundle(channel.fd, values, meta or {"status": "ok"})
    os.lseek(channel.fd, 0, os.SEEK_SET)
    return size


def test_a_sealed_result_is_read_in_place_and_private_to_the_reader():
    channel = result_channel.ResultChannel("t1")
    x = torch.arange(1 << 20, dtype=torch.float32)
    _written(channel, {"out": x, "pair": (torch.ones(3, dtype=torch.bfloat16), 2.5)})
    meta, values = channel.read(1 << 30)
    channel.close()
    assert meta == {"status": "ok"} and torch.equal(values["out"], x)
    assert values["pair"][1] == 2.5 and values["pair"][0].dtype == torch.bfloat16
    values["out"][0] = -1.0  # copy-on-write: the comparer may write its tensors
    assert values["out"][0] == -1.0


def test_sealing_stops_later_writes_and_truncation():
    channel = result_channel.ResultChannel("t2")
    _written(channel, {"out": torch.zeros(1000)})
    channel.read(1 << 30)
    other = os.open(channel.path_for_zygote, os.O_RDWR)  # what a process the job left behind could hold
    try:
        with pytest.raises(PermissionError):
            os.write(other, b"x")
        with pytest.raises(PermissionError):
            os.ftruncate(other, 0)
    finally:
        os.close(other)
        channel.close()


def test_a_writable_mapping_left_alive_means_a_copy_not_a_view():
    channel = result_channel.ResultChannel("t3")
    size = _written(channel, {"out": torch.zeros(4096)})
    survivor = mmap.mmap(channel.fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    _, values = channel.read(1 << 30)  # sealing fails (EBUSY): copied out
    survivor[size - 4 :] = b"\xff\xff\xff\xff"  # the survivor writes on, after the read
    survivor.close()
    channel.close()
    assert torch.equal(values["out"], torch.zeros(4096))


def test_a_job_that_sealed_the_seals_is_copied_out():
    channel = result_channel.ResultChannel("t4")
    _written(channel, {"out": torch.arange(10.0)})
    fcntl.fcntl(channel.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL)
    _, values = channel.read(1 << 30)
    channel.close()
    assert torch.equal(values["out"], torch.arange(10.0))


@pytest.mark.parametrize("cut", [0, 5, 100, -8])
def test_a_truncated_or_empty_result_is_a_bundle_error(cut):
    channel = result_channel.ResultChannel("t5")
    size = _written(channel, {"out": torch.arange(64.0)})
    os.ftruncate(channel.fd, cut if cut >= 0 else size + cut)
    with pytest.raises(tensorio.BundleError):
        channel.read(1 << 30)
    channel.close()


def test_a_result_over_the_limit_is_refused_before_it_is_read():
    channel = result_channel.ResultChannel("t6")
    _written(channel, {"out": torch.zeros(1 << 16)})
    with pytest.raises(tensorio.BundleError, match="exceeds"):
        channel.read(1 << 10)
    channel.close()


@pytest.fixture
def pool(tmp_path):
    p = Pool(backends.CPU, slots=1, state_dir=tmp_path)
    yield p
    p.close()


def test_jobs_return_their_result_through_memory(pool):
    result = pool.run(job(), timeout_s=60)
    assert result.meta["status"] == "ok" and result.result_via == "memory"
    assert not any((pool.state_dir / "jobs").iterdir())  # nothing left on disk either


def test_where_the_zygote_cannot_open_it_the_job_writes_result_bin(pool, monkeypatch):
    monkeypatch.setattr(result_channel.ResultChannel, "path_for_zygote", property(lambda self: "/proc/self/fd/99999"))
    result = pool.run(job(), timeout_s=60)
    assert result.meta["status"] == "ok" and result.result_via == "file"


def test_a_candidate_that_rewrites_its_result_file_after_it_returns_cannot_change_the_verdict(pool):
    """The candidate finds the shared file, forks a helper that keeps a writable mapping and writes
    ones over everything once the job has gone; the verdict's tensors were taken before."""
    body = """
import os, mmap, time
for name in os.listdir('/proc/self/fd'):
    try:
        target = os.readlink(f'/proc/self/fd/{name}')
    except OSError:
        continue
    if 'kernel-eval-result' in target and os.fork() == 0:
        fd = int(name)
        try:
            os.ftruncate(fd, 1 << 20)
            m = mmap.mmap(fd, 1 << 20, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
            for _ in range(40):  # bounded: 2 s at most
                time.sleep(0.05)
                m[:] = b'\\x01' * (1 << 20)
        finally:
            os._exit(0)
return triton_add(x, y)
"""
    result = pool.run(job(candidate_with(body)), timeout_s=60)
    assert result.bundle_error is None or "bundle" in result.bundle_error or "header" in result.bundle_error
    if result.bundle_error is None:  # read before the helper wrote: the values are the job's
        out = result.values["s0/actual"]
        assert isinstance(out, torch.Tensor) and out.shape == (1000,)
        before = out.clone()
        import time

        time.sleep(0.3)
        assert torch.equal(out, before)  # a copy (the helper's mapping blocked the seal): it never changes


def _say_on_fd3(message: bytes) -> str:
    once = f"import os\nif not os.environ.get('SAID'):\n    os.environ['SAID'] = '1'\n    os.write(3, {message!r})"
    return candidate_with(once + "\nreturn triton_add(x, y)")


def test_a_candidate_that_says_done_before_its_result_is_written_does_not_pass():
    """The job says on its command socket when its result is written, and the zygote reports it at
    once (a CUDA process takes ~0.16 s to exit). A candidate saying it first only cuts itself short."""
    from tests.tasks import VECTOR_ADD_REFERENCE
    from tools.accuracy import run_accuracy
    from tools.models.accuracy import RunAccuracyRequest

    said = run_accuracy(RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=_say_on_fd3(b"done")))
    assert said.verdict != "pass", said.summary
    junk = run_accuracy(RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=_say_on_fd3(b"junk" * 100)))
    assert junk.verdict == "pass", junk.summary  # anything else is ignored: reported when it exits


def _forged(entries: list, values: dict, data: bytes = b"") -> tuple:
    import json
    import struct

    header = json.dumps({"meta": {}, "values": values, "tensors": entries}).encode()
    blob = tensorio.MAGIC + struct.pack("<Q", len(header)) + header + data
    buffer = tensorio._aligned_buffer(len(blob))
    buffer[:] = blob
    return buffer, len(blob)


@pytest.mark.parametrize(
    "entry, tree",
    [
        ({"dtype": "float32", "shape": [0, 2**63], "offset": 0, "nbytes": 0}, {"t": 0}),  # no bytes, no tensor
        ({"dtype": "float32", "shape": [0, 2**40, 2**40], "offset": 0, "nbytes": 0}, {"t": 0}),
        ({"dtype": "float32", "shape": [True], "offset": 0, "nbytes": 4}, {"t": 0}),  # a bool is no size
        ({"dtype": "float32", "shape": [1], "offset": False, "nbytes": 4}, {"t": 0}),
        ({"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}, {"t": True}),
        ({"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}, {"scalar": 10**400}),
        # a view's strides must keep every element inside the bytes sent
        ({"dtype": "float32", "shape": [2, 2], "offset": 0, "nbytes": 16, "strides": [4, 1]}, {"t": 0}),
        ({"dtype": "float32", "shape": [2, 2], "offset": 0, "nbytes": 16, "strides": [-1, 1]}, {"t": 0}),
        ({"dtype": "float32", "shape": [2, 2], "offset": 0, "nbytes": 16, "strides": [2]}, {"t": 0}),
        ({"dtype": "float32", "shape": [0, 2], "offset": 0, "nbytes": 0, "strides": [2, 1]}, {"t": 0}),
        ({"dtype": "float32", "shape": [2, 2], "offset": 0, "nbytes": 16, "strides": [2**62, 1]}, {"t": 0}),
        ({"dtype": "float32", "shape": [2, 2], "offset": 0, "nbytes": 4, "strides": [0, 0]}, {"t": 0}),  # an output
    ],
    ids=[
        "zero-by-2**63",
        "zero-by-huge",
        "bool-dim",
        "bool-offset",
        "bool-index",
        "huge-int",
        "stride-past-the-bytes",
        "negative-stride",
        "strides-of-another-rank",
        "strides-of-nothing",
        "huge-stride",
        "view-as-output",
    ],
)
def test_a_forged_bundle_is_a_bundle_error_never_a_traceback(entry, tree):
    """A candidate can write its own bundle into the result file: every field is checked."""
    buffer, size = _forged([entry], {"out": tree}, bytes(64))
    with pytest.raises(tensorio.BundleError):
        tensorio.parse_bundle(buffer, size)


@pytest.mark.parametrize(
    "view",
    [
        lambda: torch.arange(24.0).reshape(4, 6)[:, :5],  # a slice of a wider buffer: the gap travels too
        lambda: torch.arange(24, dtype=torch.float16).reshape(4, 6).t(),  # a transpose
        lambda: torch.arange(36, dtype=torch.int32).reshape(4, 3, 3)[:, :, 1],  # one channel of interleaved ones
        lambda: torch.tensor([True, False, True]).expand(2, 3),  # repeated elements (stride 0)
    ],
    ids=["slice", "transpose", "channel", "expand"],
)
def test_given_inputs_keep_their_layout_and_other_values_travel_row_major(view):
    """A job's given inputs arrive as the same view (strides, and the storage between elements), so a kernel that
    mishandles a strided view fails in a re-run as it did in the run; an output travels row-major."""
    t = view()
    r, w = os.pipe()
    try:
        size = tensorio.write_bundle(w, {"s0/inputs": [t], "s0/actual": t})
        os.close(w)
        w = -1
        blob = os.read(r, size)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
    buffer = tensorio._aligned_buffer(len(blob))
    buffer[:] = blob
    _meta, values = tensorio.parse_bundle(buffer, len(blob))
    given, output = values["s0/inputs"][0], values["s0/actual"]
    assert given.stride() == t.stride() and torch.equal(given, t)
    region = tensorio.storage_region(t)
    assert region is not None and torch.equal(tensorio.storage_region(given), region)  # the gaps too
    assert output.is_contiguous() and torch.equal(output, t)


def test_a_transformed_input_keeps_the_view_it_came_as():
    wide = torch.arange(24.0).reshape(4, 6)
    view = wide[:, :5]
    scaled = tensorio.with_layout_of(view * 4, view)
    assert scaled.stride() == view.stride() and torch.equal(scaled, view * 4)
    assert torch.equal(tensorio.storage_region(scaled)[5::6], tensorio.storage_region(view)[5::6])  # gaps kept
    moved = common.to_device([view], "meta")[0]  # to another device (here: meta), the view stays a view
    assert moved.device.type == "meta" and moved.stride() == view.stride() and moved.shape == view.shape
    repeated = torch.ones(3).expand(2, 3)
    different = torch.arange(6.0).reshape(2, 3)
    assert torch.equal(tensorio.with_layout_of(different, repeated), different)  # an expand cannot hold them
