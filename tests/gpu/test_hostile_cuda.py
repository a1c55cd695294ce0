"""Host memory of a cuda job: RLIMIT_DATA at what the device-warm job holds + its budget, shared
anonymous mappings refused unless the job's cgroup counts them, no /dev/zero (sandbox/isolation).
RLIMIT_AS cannot be used there: the driver reserves address ranges far beyond any budget. Every
attack is bounded (at most 6 GiB of host memory if the limit failed)."""

from __future__ import annotations

import pytest
import torch

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def attack(candidate: str, **options):
    options = {"num_seeds": 1, "determinism_check": False, "timeout_s": 180} | options
    return run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=candidate, backend="cuda", **options)
    )


def _isolated(result) -> bool:
    return result.isolation.get("readonly_root") is not None and result.isolation["readonly_root"].active


def test_honest_gpu_work_runs_under_the_data_limit_and_the_report_says_which_limit_holds():
    """cuBLAS, a device-to-host copy, a fresh Triton compile and 8 GiB on the device, within a 1 GiB
    host budget."""
    body = """
a = torch.randn(2048, 2048, device=x.device)
b = (a @ a).sum().item()
big = torch.empty(8 << 30, dtype=torch.uint8, device=x.device).fill_(1)
del big
host = a.cpu()
return triton_add(x, y)
"""
    r = attack(candidate_with(body), memory_mb=1024)
    assert r.verdict == "pass", r.summary
    if not _isolated(r):
        pytest.skip("no root here: the data limit applies, the rest of the memory bound does not")
    assert r.isolation["rlimit_data"].active, r.isolation
    memory = r.isolation["memory_limit"]
    print(memory)
    assert memory.active and "data 1024 MiB" in memory.detail and "no /dev/zero" in memory.detail, memory


def test_host_memory_past_the_budget_is_refused_on_cuda():
    body = """
import resource
def data():
    return [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmData")][0]
print("LIMIT", resource.getrlimit(resource.RLIMIT_DATA), "VMDATA_KB", data())
hoard = []
for _ in range(24):  # at most 6 GiB even if the limit failed
    hoard.append(torch.ones(64 << 20, device="cpu"))  # 256 MiB each, touched
    print("VMDATA_KB", data())
return triton_add(x, y)
"""
    r = attack(candidate_with(body), memory_mb=1024)
    print(r.summary, r.stdout, r.isolation.get("rlimit_data"))
    assert r.verdict in ("runtime_error", "crashed") and r.error is not None, r.summary
    assert "memory" in (r.error.message + (r.error.hint or "")).lower(), r.error


def test_shared_memory_that_the_data_limit_would_not_count_is_refused_unless_the_cgroup_counts_it_on_cuda():
    body = """
import mmap, os
try:
    m = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)  # bounded: 64 MiB
    print("SHARED_ANON MAPPED")
except OSError as e:
    print("SHARED_ANON REFUSED", e.errno)
print("DEV_ZERO", os.path.exists("/dev/zero"))
try:
    pinned = torch.empty(256 << 20, dtype=torch.uint8, device="cpu", pin_memory=True).fill_(1)  # bounded: 256 MiB
    print("PINNED TAKEN")  # outside the data limit (benchmarks/host_memory_probe.py) if it were allowed
except RuntimeError as e:  # seen on an H100: "CUDA error: out of memory" (no shared mapping for it)
    print("PINNED REFUSED", str(e)[:80])
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    print(r.stdout)
    assert r.verdict == "pass", r.summary
    # allowed only where the job's cgroup counts those pages (CUDA graphs need them): the next test hoards them
    assert ("SHARED_ANON MAPPED" if _counted_by_cgroup(r) else "SHARED_ANON REFUSED 1") in r.stdout, r.stdout
    if _isolated(r):
        assert "DEV_ZERO False" in r.stdout, r.stdout


def _counted_by_cgroup(result) -> bool:
    cgroup = result.isolation.get("cgroup")
    return cgroup is not None and cgroup.active


def test_shared_anonymous_memory_past_the_budget_is_refused_where_the_cgroup_allows_the_mapping():
    """Where the job's cgroup counts shared anonymous pages the filter lets a job map them (the data limit does not
    count them): the cgroup must hold them to the budget. At most 6 GiB if the limit failed."""
    body = """
import mmap
hoard = []
for _ in range(24):  # bounded: 6 GiB
    m = mmap.mmap(-1, 256 << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    m.write(b"\\x01" * (256 << 20))
    hoard.append(m)
print("HOARDED", len(hoard))
return triton_add(x, y)
"""
    r = attack(candidate_with(body), memory_mb=1024)
    assert "HOARDED" not in r.stdout and r.error is not None, (r.summary, r.stdout)
    if r.verdict == "runtime_error":  # no cgroup counts them: the first mapping was refused (EPERM)
        assert "not permitted" in r.error.message.lower(), r.error
    else:  # the cgroup killed the job at its limit (a killed job's result carries no isolation report)
        assert r.verdict == "crashed" and "memory" in (r.error.message + (r.error.hint or "")).lower(), r.error


def test_the_next_honest_cuda_job_is_right():
    r = attack(VECTOR_ADD_CANDIDATE)
    assert r.verdict == "pass", r.summary
