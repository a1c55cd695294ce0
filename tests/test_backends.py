"""Backends are objects with capabilities that every place asks (sandbox/backends.py), not names compared
in each module: a new backend is one entry here."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from sandbox import backends, pool
from tools import code_version
from tools.models.task import BackendName, ReportedBackend

ROOT = Path(__file__).resolve().parents[1]


def test_capabilities_of_the_three_backends():
    cpu, cuda, npu = backends.CPU, backends.CUDA, backends.NPU
    assert cpu.interpreter and not cpu.gpu and cpu.visible_devices_env is None and not cpu.cuda_graphs
    assert cuda.gpu and cuda.inputs_on_device and cuda.compare_on_device and cuda.cuda_graphs
    assert cuda.visible_devices_env == "CUDA_VISIBLE_DEVICES"
    assert npu.gpu and npu.visible_devices_env == "ASCEND_RT_VISIBLE_DEVICES"
    assert not npu.inputs_on_device and not npu.compare_on_device and not npu.cuda_graphs  # untested there
    assert not backends.COMPILER.gpu  # compiles for a GPU target, runs nothing on one


def test_the_tools_ask_capabilities_instead_of_comparing_backend_names():
    """No `backend.name == "cuda"` (or a backend string compared) in tools/: a ROCm backend, which torch
    calls "cuda", would be misrouted by each. Device *types* of tensors are torch's, and may be compared."""
    compared = re.compile(r"""(backend(\.name)?|backend_name|request\.backend)\s*(==|!=|in)\s*\(?["'](cpu|cuda|npu)""")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in (ROOT / "tools").rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if compared.search(line)
    ]
    assert offenders == []
    # nor a threshold keyed by a backend's name (a new backend would silently get another's value)
    keyed = re.compile(r"""[{,]\s*["'](cpu|cuda|npu)["']\s*:""")
    lines = (ROOT / "tools" / "thresholds.py").read_text().splitlines()
    assert [line for line in lines if keyed.search(line)] == []


def test_a_backend_is_one_entry_the_schema_and_the_sandbox_follow():
    """The request schema's names are the selectable backends; the sandbox's kept variables and the daemon's
    fingerprint come from each backend's own lists; `auto` takes the first available in AUTO_ORDER."""
    assert typing.get_args(BackendName) == ("auto", *backends.BACKENDS)
    assert typing.get_args(ReportedBackend) == backends.BACKENDS
    for backend in backends.SELECTABLE:
        assert set(backend.passthrough_env) <= set(pool.PASSTHROUGH_ENV)
        assert set(backend.env_prefixes) <= set(code_version.ENV_PREFIXES)
    assert backends.resolve("auto") == next(b for b in backends.AUTO_ORDER if b.available())
    assert backends.CUDA.torch_cuda and not backends.NPU.torch_cuda and backends.CPU.golden_device == "cpu"
