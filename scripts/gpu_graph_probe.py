"""Which of a GPU job's bounds breaks CUDA graph capture (a device probe; run on the GPU machine).

tests/gpu/test_benchmark_kernel.py::test_cuda_graphs_and_warm_cache crashed on an H100 (2026-12-06) with "CUDA
error: out of memory" in the timing job; every other cuda test passed. A GPU job runs under RLIMIT_DATA (what
the device-warm job holds + memory_mb) and a seccomp filter that refuses shared anonymous mmap, memfd_create and
SysV shm (sandbox/isolation). Each probe below is a fresh process that warms CUDA, applies none, one or both of
those bounds as the job does, then captures and replays a small graph:

    python3 scripts/gpu_graph_probe.py          # prints one line per probe: ok, or the error
"""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import resource, sys, torch
sys.path.insert(0, ".")
from sandbox.isolation import linux, seccomp
bounds = sys.argv[1].split("+") if sys.argv[1] != "none" else []
x = torch.randn(1 << 20, device="cuda")
(x * 2).sum().item()  # the device context made, as a job's is before its limits
if "data" in bounds:
    held = linux.status_bytes("VmData")
    resource.setrlimit(resource.RLIMIT_DATA, (held + (8192 << 20),) * 2)
if "no_shared_mmap_rule" in bounds:  # the filter without its shared anonymous mmap rule
    seccomp._SHARED_ANONYMOUS = 0x80000000  # a flag bit no mmap call sets: the rule never matches
if "no_memfd_rule" in bounds:
    seccomp._ALWAYS_DENIED = tuple(n for n in seccomp._ALWAYS_DENIED if not n.startswith("memfd"))
if "seccomp" in bounds:
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)  # what the job sets before its filter
    print("seccomp:", seccomp.load_filter(seccomp.build_filter()), file=sys.stderr)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(2):
        y = torch.relu(x)
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    y = torch.relu(x)
for _ in range(3):
    graph.replay()
torch.cuda.synchronize()
print("ok", float(y.sum()))
"""


def main() -> None:
    probes = ("none", "data", "seccomp", "data+seccomp", "seccomp+no_shared_mmap_rule", "seccomp+no_memfd_rule")
    for bounds in sys.argv[1:] or probes:
        done = subprocess.run([sys.executable, "-c", PROBE, bounds], capture_output=True, text=True, timeout=120)
        errors = [line for line in done.stderr.splitlines() if "Error" in line] or done.stderr.splitlines()[-1:]
        said = done.stdout.strip() or next(iter(errors[-1:]), "?")
        print(f"{bounds:14s} rc={done.returncode} {said}", flush=True)


if __name__ == "__main__":
    main()
