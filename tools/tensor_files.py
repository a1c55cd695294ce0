"""Read dumped tensors (.npy, .npz, .pt) safely: no pickle, clear errors."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import torch

from sandbox.protocol import KernelEvalError

SUFFIXES = (".npy", ".npz", ".pt", ".pth")


class TensorFileError(KernelEvalError, ValueError):
    """A tensor file could not be used; the message says which file and why."""

    blame = "caller"


def _from_numpy(array: np.ndarray, where: str) -> torch.Tensor:
    if array.dtype.kind not in "fiub":
        raise TensorFileError(f"{where}: unsupported numpy dtype {array.dtype} (use float, int or bool arrays)")
    return torch.from_numpy(np.ascontiguousarray(array))


def _check_tree(value, where: str):
    """Only tensors, in tuples / lists / dicts, may come out of a .pt file."""
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, list | tuple):
        return type(value)(_check_tree(v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, dict):
        return {k: _check_tree(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TensorFileError(f"{where}: holds a {type(value).__name__}, not a tensor")


def load_tensors(path: str | Path, role: str = "tensor", key: str | None = None):
    """A tensor, or a dict / list of tensors for multi-output dumps. `role` names the file in errors.

    `key` picks one array out of an .npz or a dict in a .pt file.
    """
    p = Path(path)
    where = f"{role} file {str(path)!r}"
    if not p.is_file():
        raise TensorFileError(f"{where}: no such file")
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise TensorFileError(f"{where}: unsupported file type {suffix or '(none)'}; use one of {', '.join(SUFFIXES)}")
    try:
        if suffix == ".npy":
            with open(p, "rb") as f:
                if f.read(6) != b"\x93NUMPY":
                    raise TensorFileError(f"{where}: not an .npy file (no NUMPY header)")
            value = _from_numpy(np.load(p, allow_pickle=False), where)
        elif suffix == ".npz":
            with np.load(p, allow_pickle=False) as archive:
                value = {name: _from_numpy(archive[name], f"{where}[{name!r}]") for name in archive.files}
            if not value:
                raise TensorFileError(f"{where}: the archive holds no arrays")
        else:
            value = _check_tree(torch.load(p, map_location="cpu", weights_only=True), where)
    except TensorFileError:
        raise
    except (ValueError, OSError, EOFError, RuntimeError, zipfile.BadZipFile) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TensorFileError(f"{where}: cannot be read as {suffix}: {first}") from None
    except Exception as exc:  # torch's weights_only unpickler raises its own types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TensorFileError(
            f"{where}: cannot be read as {suffix} (tensors only, no pickled objects): {first}"
        ) from None
    if key is not None:
        if not isinstance(value, dict) or key not in value:
            keys = ", ".join(map(str, value)) if isinstance(value, dict) else "none (not a dict)"
            raise TensorFileError(f"{where}: no entry {key!r}; entries: {keys}")
        value = value[key]
    return value
