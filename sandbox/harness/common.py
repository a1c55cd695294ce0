"""Small helpers every job kind uses: loading user modules, seeding, moving trees of tensors."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable
from typing import Any

import torch


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
    return tree_map(lambda t: t.to(device), value)


def to_cpu(value):
    return tree_map(lambda t: t.detach().to("cpu"), value)


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
    return bool(torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)))


def cast_model(model: torch.nn.Module, dtype: torch.dtype | None) -> torch.nn.Module:
    """The task's dtype override applies to floating parameters and buffers too."""
    return model.to(dtype) if dtype is not None else model


def synchronize(device_type: str) -> None:
    if device_type == "cuda":
        torch.cuda.synchronize()
    elif device_type == "npu":
        torch.npu.synchronize()  # type: ignore[attr-defined]  # torch_npu
