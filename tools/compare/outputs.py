"""Flatten an op's outputs (tensor, tuple, list, dict, nested) into named tensors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch


def normalize_outputs(value, name: str = "output") -> list[tuple[str, object]]:
    """[(name, leaf)] in a stable order; leaves are tensors, or whatever else the op returned.

    Python numbers become 0-d tensors so that ops returning a scalar are compared like tensors.
    """
    if isinstance(value, torch.Tensor):
        return [(name, value)]
    if isinstance(value, bool | int | float) and not isinstance(value, torch.Tensor):
        return [(name, torch.tensor(value))]
    if isinstance(value, Mapping):
        leaves = []
        for key in value:
            leaves.extend(normalize_outputs(value[key], f"{name}[{key!r}]"))
        return leaves
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        leaves = []
        for i, item in enumerate(value):
            leaves.extend(normalize_outputs(item, f"{name}[{i}]"))
        return leaves
    return [(name, value)]
