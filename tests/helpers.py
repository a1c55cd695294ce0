"""Small helpers shared by tests."""

from __future__ import annotations

import contextlib
import math


def assert_nearly_equal(a, b, rel=1e-6, path="result"):
    """Recursive equality of dumped models; floats within `rel` (chunked float32 sums round)."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), f"{path}: keys differ: {a.keys() ^ b.keys()}"
        for key in a:
            assert_nearly_equal(a[key], b[key], rel, f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{path}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_nearly_equal(x, y, rel, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == b or math.isclose(a, b, rel_tol=rel), f"{path}: {a} != {b}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


@contextlib.contextmanager
def without_experiments(*ids: str):
    """Explain without these experiments (to test one that a later-registered, more decisive one would
    pre-empt: the access trace and the repair search settle most logic errors before unread_tail,
    input_layout or padding_value run); the registry's order is restored after."""
    from tools.diagnosis.registry import EXPERIMENTS

    saved = dict(EXPERIMENTS)
    for id in ids:
        del EXPERIMENTS[id]
    try:
        yield
    finally:
        EXPERIMENTS.clear()
        EXPERIMENTS.update(saved)
