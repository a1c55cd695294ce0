"""What each corpus task should get: the manifest's verdict, where `block_pointers` means pass on
a Triton that still has tl.make_block_ptr (3.8 and older) and `unsupported` on 3.9 and newer."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent
MANIFEST = json.loads((ROOT / "manifest.json").read_text())


def has_block_pointers() -> bool:
    import triton.language as tl

    return "have been removed" not in (tl.make_block_ptr.__doc__ or "")


def label(entry: dict) -> str:
    return "/".join([entry["task"], entry.get("candidate", "candidate.py"), entry.get("dtype", "task dtype")])


def request_options(entry: dict) -> dict:
    """The run_accuracy arguments of an entry (without the backend)."""
    folder = ROOT / entry["task"]
    options = {"reference": str(folder / "reference.py"), "candidate": str(folder / entry.get("candidate", "candidate.py"))}
    if "dtype" in entry:
        options["dtype"] = entry["dtype"]
    return options


def expected(entry: dict, backend: str) -> str:
    verdict = entry[backend]
    if verdict == "block_pointers":
        return "pass" if has_block_pointers() else "unsupported"
    return verdict
