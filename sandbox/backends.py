"""Backends: where the candidate runs. Each knows its device, its environment and its device nodes.

- cpu:  the Triton interpreter (TRITON_INTERPRET=1) on CPU tensors, made to behave as compiled
        Triton by sandbox/harness/interpreter_compat.py (scalars, libdevice, bf16, driver).
- cuda: Triton compiled for the NVIDIA GPU.
- npu:  torch_npu + triton-ascend (device "npu"). Needs a separate environment: triton-ascend and
        upstream triton both install a top-level `triton` package, and torch_npu needs CANN.
        Untested here (no NPU); kept small and covered by tests that skip without torch_npu.

`auto` picks npu > cuda > cpu (AUTO_ORDER). Detection runs in the trusted server process, which never forks
sandboxes, so initialising a driver there is harmless; the zygote never touches a device.

Everything that differs between backends is a field or property here: the rest of the code asks the Backend
(`backend.gpu`, `backend.interpreter`, `backend.golden_device`, `backend.torch_cuda`) and never compares names,
so a new backend (say ROCm, which torch drives as "cuda") is one more Backend below and its name in
tools/models/task.py's BackendName.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field


def _always() -> bool:
    return True


@dataclass(frozen=True)
class Backend:
    name: str
    device: str  # torch device type of the candidate's tensors
    env: dict[str, str] = field(default_factory=dict)  # set in the zygote before torch/triton import
    device_patterns: tuple[str, ...] = ()  # device nodes bound into the sandbox
    bind_sys: bool = False  # drivers read /sys
    interpreter: bool = False
    #: The fp64 golden runs on the device when it supports float64, else on the CPU.
    golden_on_device: bool = False
    #: Jobs get RLIMIT_AS (zygote size + memory budget). Not with GPU drivers, which reserve huge
    #: address ranges; the offline compiler has none yet either (its report says so).
    address_space_limit: bool = False
    #: GPU backends instead: RLIMIT_DATA (what the warm job holds + the memory budget) bounds private
    #: allocations; the job's /dev has no /dev/zero, whose shared mappings that limit does not count.
    data_limit: bool = False
    #: Jobs make the task's inputs on the device (torch's generator there): no copies, no files.
    inputs_on_device: bool = False
    #: The trusted process compares outputs on the device (it never forks, so a driver there is safe).
    compare_on_device: bool = False
    #: The environment variable that limits which devices a process sees (None: no devices).
    visible_devices_env: str | None = None
    #: benchmark_kernel can replay the forward as a CUDA graph.
    cuda_graphs: bool = False
    #: Whether this machine can run it, and what to do where it cannot.
    available: Callable[[], bool] = _always
    unavailable_hint: str = ""
    #: The server's environment variables the sandbox keeps (drivers' settings; nothing else of the server's).
    passthrough_env: tuple[str, ...] = ()
    #: Prefixes of environment variables that change what its jobs do (part of the daemon's code version).
    env_prefixes: tuple[str, ...] = ()

    @property
    def gpu(self) -> bool:
        """Compiled kernels on an accelerator (not the interpreter, not the offline compiler)."""
        return not self.interpreter and self.visible_devices_env is not None

    @property
    def golden_device(self) -> str:
        """Where the fp64 golden is computed."""
        return self.device if self.golden_on_device else "cpu"

    @property
    def torch_cuda(self) -> bool:
        """torch.cuda drives its devices (NVIDIA; AMD under ROCm too): it counts them, and Ray calls them GPUs."""
        return self.device == "cuda"


def npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def cuda_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:
        return False


CPU = Backend("cpu", "cpu", env={"TRITON_INTERPRET": "1"}, interpreter=True, address_space_limit=True)
CUDA = Backend(
    "cuda",
    "cuda",
    env={"TRITON_INTERPRET": "0"},
    device_patterns=("/dev/nvidia*", "/dev/nvidia-caps/*", "/dev/dri/*"),
    bind_sys=True,
    golden_on_device=True,
    inputs_on_device=True,
    compare_on_device=True,
    visible_devices_env="CUDA_VISIBLE_DEVICES",
    cuda_graphs=True,
    data_limit=True,
    available=cuda_available,
    unavailable_hint="torch sees no CUDA device; use backend='cpu' (Triton interpreter) or run on a GPU machine",
    passthrough_env=(
        "CUDA_VISIBLE_DEVICES",
        "NCCL_NVLS_ENABLE",
        "TORCH_SYMM_MEM_DISABLE_MULTICAST",
        "NVSHMEM_DISABLE_NVLS",
    ),
    env_prefixes=("CUDA_", "NCCL_", "NVSHMEM_"),
)
NPU = Backend(
    "npu",
    "npu",
    env={"TRITON_INTERPRET": "0", "TORCH_DEVICE_BACKEND_AUTOLOAD": "1"},
    device_patterns=("/dev/davinci*", "/dev/devmm_svm", "/dev/hisi_hdc", "/dev/svm0"),
    bind_sys=True,
    golden_on_device=False,  # most NPU kernels have no float64: golden on the CPU
    data_limit=True,
    visible_devices_env="ASCEND_RT_VISIBLE_DEVICES",  # inputs and compares on the CPU until tested there
    available=npu_available,
    unavailable_hint="torch_npu is not installed; install torch_npu and triton-ascend in a separate environment "
    "(pip install 'kernel-eval-mcp[npu]'; never beside upstream triton)",
    passthrough_env=("ASCEND_RT_VISIBLE_DEVICES", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH"),
    env_prefixes=("ASCEND_",),
)
#: Internal: compiles kernels offline for a CUDA target on a CPU machine. Its zygote never runs
#: the interpreter, because in Triton 3.9 any interpreted launch leaves state behind that breaks
#: later real compiles in the same process.
COMPILER = Backend("compiler", "cpu", env={"TRITON_INTERPRET": "0"})
#: What a caller may name, and what `auto` tries, in order.
SELECTABLE = (CPU, CUDA, NPU)
AUTO_ORDER = (NPU, CUDA, CPU)
BACKENDS = tuple(b.name for b in SELECTABLE)
_BY_NAME = {b.name: b for b in (*SELECTABLE, COMPILER)}


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run on this machine; the message says what to do."""


def resolve(name: str) -> Backend:
    """'auto' or a selectable backend's name -> a Backend this machine can run."""
    if name == "auto":
        return next(b for b in AUTO_ORDER if b.available())
    if name not in BACKENDS:
        raise BackendUnavailable(f"unknown backend {name!r}; use auto, {', '.join(BACKENDS)}")
    backend = _BY_NAME[name]
    if not backend.available():
        raise BackendUnavailable(f"backend {name!r} requested but {backend.unavailable_hint}")
    return backend


def by_name(name: str) -> Backend:
    return _BY_NAME[name]


def passthrough_env() -> tuple[str, ...]:
    """Every backend's driver variables the sandbox keeps."""
    return tuple(dict.fromkeys(v for b in _BY_NAME.values() for v in b.passthrough_env))


def env_prefixes() -> tuple[str, ...]:
    return tuple(dict.fromkeys(p for b in _BY_NAME.values() for p in b.env_prefixes))
