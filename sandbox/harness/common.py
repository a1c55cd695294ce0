"""Small helpers every job kind uses: loading user modules, seeding, moving trees of tensors."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable
from typing import Any

import torch

from sandbox import tensorio


class UserCodeError(Exception):
    """User code (reference or candidate) raised; `info` describes it in the user's terms."""

    def __init__(self, info: dict):
        super().__init__(info.get("message"))
        self.info = info


def load_module(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py path always has a source loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def module_from_source(text: str, path: str, name: str):
    """A module executed from source text; `path` names it in tracebacks (its lines are put in
    linecache, as if the file existed). Registered in sys.modules until the caller pops it."""
    import linecache
    import types

    module = types.ModuleType(name)
    module.__file__ = path
    linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    sys.modules[name] = module
    exec(compile(text, path, "exec"), module.__dict__)
    return module


def seed_all(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:
        pass


def tree_map(fn: Callable[[torch.Tensor], Any], value: Any) -> Any:
    """`fn` applied to every tensor of a tree of tuples, lists and dicts (the tree's shape is kept)."""
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(tree_map(fn, v) for v in value)
    if isinstance(value, list):
        return [tree_map(fn, v) for v in value]
    if isinstance(value, dict):
        return {k: tree_map(fn, v) for k, v in value.items()}
    return value


def tree_tensors(value) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    tree_map(lambda t: found.append(t) or t, value)
    return found


def to_device(value, device):
    """Every tensor on `device`; a strided view that travels as one (tensorio.storage_region) stays that view
    (`.to()` would make a slice contiguous)."""
    return tree_map(lambda t: _moved(t, device), value)


def _moved(t: torch.Tensor, device) -> torch.Tensor:
    region = tensorio.storage_region(t) if t.device != torch.device(device) else None
    if region is None:
        return t.to(device)
    return torch.as_strided(region.to(device), t.shape, t.stride())


def to_cpu(value):
    """Every tensor on the host; CPU tensors as they are (no copy)."""
    return tree_map(lambda t: t.detach() if t.device.type == "cpu" else _device_to_host(t), value)


def host_copy(value):
    """Every tensor as a fresh host copy (what a computation may overwrite): device tensors are
    copied once, to the host, CPU ones cloned."""
    return tree_map(lambda t: t.detach().clone() if t.device.type == "cpu" else _device_to_host(t), value)


# A device-to-host copy into pageable memory runs at ~1 GB/s on the H200 host (1 GiB: 1.0 s), into
# pinned memory at ~50 GB/s, but pinning 1 GiB costs 0.7 s. Large tensors therefore go through two
# small pinned buffers, allocated once per process (a spare does it while idle, device_warm), the
# device filling one while the host copies the other out.
STAGED_ABOVE_BYTES = 8 << 20
STAGE_BYTES = 32 << 20
_stage: list[torch.Tensor] = []


def stage_buffers() -> list[torch.Tensor]:
    """The process's two pinned staging buffers ([] where pinned memory cannot be had)."""
    if not _stage:
        try:
            _stage.extend(torch.empty(STAGE_BYTES, dtype=torch.uint8, pin_memory=True) for _ in range(2))
        except RuntimeError:  # no pinned memory (a limit, no driver): plain copies
            _stage.clear()
    return _stage


def _staged(t: torch.Tensor) -> bool:
    return t.device.type == "cuda" and t.layout == torch.strided and t.nbytes >= STAGED_ABOVE_BYTES


def _device_to_host(t: torch.Tensor) -> torch.Tensor:
    t = t.detach()
    if not _staged(t) or not stage_buffers():
        return t.to("cpu")
    out = torch.empty(t.shape, dtype=t.dtype)
    dst = out.reshape(-1).view(torch.uint8)
    start = 0
    for chunk in _staged_chunks(t):
        dst[start : start + chunk.numel()].copy_(chunk)
        start += chunk.numel()
    return out


def _staged_chunks(t: torch.Tensor):
    """The bytes of device tensor `t` in order, as uint8 views of the pinned staging buffers; each is
    valid until the next one is asked for (the device fills one buffer while the host reads the other)."""
    src = t.contiguous().reshape(-1).view(torch.uint8)
    chunks = [(start, min(start + STAGE_BYTES, src.numel())) for start in range(0, src.numel(), STAGE_BYTES)]
    done: list[torch.cuda.Event] = []

    def fetch(i: int) -> None:
        start, end = chunks[i]
        _stage[i % 2][: end - start].copy_(src[start:end], non_blocking=True)
        done.append(torch.cuda.Event())
        done[-1].record()

    fetch(0)
    for i, (start, end) in enumerate(chunks):
        if i + 1 < len(chunks):
            fetch(i + 1)  # its buffer's previous chunk was read in the last iteration
        done[i].synchronize()
        yield _stage[i % 2][: end - start]


def host_bytes(t: torch.Tensor):
    """tensorio.write_bundle's source of a tensor's bytes: a large device tensor through the staging
    buffers, straight into the file (no host copy of the whole tensor is made)."""
    if _staged(t) and stage_buffers():
        for chunk in _staged_chunks(t.detach()):
            yield chunk.numpy().data
    else:
        yield tensorio.raw_bytes(t)


def snapshot(value):
    """What a forward returned, as it is when it returns: copied (on its device; a device copy costs
    microseconds, the host copy is made once, when the result is written). Never the forward's own
    tensor, which a later forward or a thread of the candidate's could still change."""
    return tree_map(lambda t: t.detach().clone(), value)


def clone(value):
    return tree_map(lambda t: t.clone(), value)


def upcast64(value):
    return tree_map(lambda t: t.to(torch.float64) if t.is_floating_point() else t, value)


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape, dtype and bits (NaN payloads included): what 'unchanged' means for inputs."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype == torch.bool:
        return bool(torch.equal(a, b))
    # as bytes, laid out contiguously first (a strided view of a 2-byte dtype has no byte view of its own)
    return bool(torch.equal(a.contiguous().reshape(-1).view(torch.uint8), b.contiguous().reshape(-1).view(torch.uint8)))


def cast_model(model: torch.nn.Module, dtype: torch.dtype | None) -> torch.nn.Module:
    """The task's dtype override applies to floating parameters and buffers too."""
    return model.to(dtype) if dtype is not None else model


def synchronize(device_type: str) -> None:
    if device_type == "cuda":
        torch.cuda.synchronize()
    elif device_type == "npu":
        torch.npu.synchronize()  # type: ignore[attr-defined]  # torch_npu


def candidate_frame(source_path: str | None, depth: int = 2):
    """The frame of the candidate's file (`source_path`) running on this stack (a kernel's frame under the
    interpreter's load or store), None when there is none; `depth` frames up from the caller of this."""
    frame = sys._getframe(depth)
    while frame is not None and source_path is not None:
        if frame.f_code.co_filename == source_path:
            return frame
        frame = frame.f_back
    return None


def candidate_line(source_path: str | None, depth: int = 2) -> int:
    """The line of that frame (candidate_frame), 0 when there is none."""
    frame = candidate_frame(source_path, depth + 1)
    return frame.f_lineno if frame is not None else 0
