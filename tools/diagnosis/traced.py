"""One traced output element: what the reference needs of each input and what the candidate's loads read for it.

Made from the two jobs of the access trace (tools.diagnosis.access): the reference's dependencies (float64
gradient, or perturbation for integer inputs) and the candidate's trace (per program and per lane).
"""

from __future__ import annotations

import math

import torch


class TracedSample:
    """A sampled output element (`wrong` or a right control) with its dependencies and reads."""

    def __init__(self, number: int, position: int, flat: int, wrong: bool, dep: dict, trace: dict, values: dict):
        self.number, self.position, self.flat, self.wrong = number, position, flat, wrong
        self.store_line = trace.get("store_line")
        #: where the writing program (or one it read from) first made Inf / NaN of finite operands
        self.nonfinite: dict | None = trace.get("nonfinite") if isinstance(trace.get("nonfinite"), dict) else None
        #: where the writing program (or one it read from) first wrapped a signed integer of 32 bits or fewer
        self.wrap: dict | None = trace.get("wrap") if isinstance(trace.get("wrap"), dict) else None
        self.judgeable = dep.get("status") == "ok" and trace.get("status") == "ok"
        self.needed: dict[int, torch.Tensor] = {}  # input -> the elements the reference's gradient needs (all of them)
        for e in dep.get("inputs", []):
            t = values.get(e["key"])
            if t is not None and e["count"] <= t.numel():
                self.needed[e["input"]] = t
        self.reads: dict[int, dict[int, torch.Tensor]] = {}  # input -> line -> elements
        #: (input, load line) -> the element the lane that stored this one read at that line
        self.aligned: dict[tuple[int, int], int] = {
            (int(e["input"]), int(e["line"])): int(e["element"]) for e in trace.get("aligned") or []
        }
        #: the kernel's floating locals at the lane that stored this element (names checked to be identifiers)
        stored = trace.get("at_store")
        self.at_store: dict[str, float] = (
            {k: float(v) for k, v in stored.items() if isinstance(k, str) and k.isidentifier() and _number(v)}
            if isinstance(stored, dict)
            else {}
        )
        self.capped: set[int] = set()
        for e in trace.get("reads", []):
            t = values.get(e["key"])
            if t is None or e["count"] > t.numel():
                self.capped.add(e["input"])
                continue
            self.reads.setdefault(e["input"], {})[e["line"]] = t

    def missing(self, index: int) -> torch.Tensor | None:
        """The needed elements of input `index` the writing program did not read (None: cannot tell)."""
        needed = self.needed.get(index)
        if not self.judgeable or needed is None or needed.numel() == 0 or index in self.capped:
            return None
        read = self.reads.get(index, {})
        everything = torch.cat(list(read.values())) if read else torch.zeros(0, dtype=torch.int64)
        return needed[~torch.isin(needed, everything)]


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


#: (load line, input) -> dimension -> the kernel variables that held its index at that load
IndexNames = dict[tuple[int, int], dict[int, list[str]]]
