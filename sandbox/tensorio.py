"""The private channel's format: named trees of tensors as a JSON header plus raw buffers.

Sandboxed children write bundles; the trusted parent reads them. A bundle comes from untrusted
code, so reading never unpickles anything and checks every size, offset, dtype and depth before
it makes a tensor. Layout:

    b"KEVB1\\n" | u64 little-endian header length | header JSON | tensor bytes

header = {"meta": {...}, "values": {name: tree}, "tensors": [{"dtype", "shape", "offset", "nbytes"[, "strides"]}]}
tree   = {"t": index} | {"list": [tree]} | {"tuple": [tree]} | {"dict": [[key, tree]]}
       | {"none": null} | {"scalar": number or bool}

A tensor travels as its elements in row-major order, except a strided view given to a job (the parts in
LAYOUT_PARTS: a transpose, a slice of a wider buffer, one channel of an interleaved one): its entry has
"strides" and its bytes are the run of storage its elements span, gaps included, so the job that reads it
meets the same view, and a kernel that mishandles the view fails in a re-run as it failed in the run.
"""

from __future__ import annotations

import json
import math
import os
import struct

import torch

MAGIC = b"KEVB1\n"
MAX_HEADER = 32 << 20
MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_NDIM = 16
MAX_ELEMENTS = 1 << 48  # of a tensor, its zero-length dimensions counted as 1: torch's sizes are int64
SCALAR_INT_RANGE = (-(2**63), 2**64 - 1)
ALIGN = 64
#: The parts of a job's bundles whose strided tensors keep their layout (what the reference and the candidate are
#: given); every other value (outputs, goldens) travels in row-major order.
LAYOUT_PARTS = ("inputs", "init")
#: A strided view keeps its layout when the storage its elements span is at most this many times its elements, or
#: at most LAYOUT_SPAN_BYTES: a transpose, a slice, one channel of a few; a sparser view travels row-major.
MAX_LAYOUT_SPAN_FACTOR = 16
LAYOUT_SPAN_BYTES = 1 << 20

DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, name)
    for name in (
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "float8_e4m3fn",
        "float8_e5m2",
        "int8",
        "uint8",
        "int16",
        "int32",
        "int64",
        "bool",
        "complex64",
        "complex128",
    )
}


class BundleError(ValueError):
    """A bundle is malformed (truncated, oversized, inconsistent): never trust its content."""


# --- writing (in the sandboxed child) -----------------------------------------------------------


def _span(shape, strides) -> int:
    """How many elements of storage a view of `shape` and `strides` spans, from its first element to its last."""
    return 1 + sum((size - 1) * stride for size, stride in zip(shape, strides, strict=True))


def storage_region(t: torch.Tensor) -> torch.Tensor | None:
    """The 1-D run of storage a strided view's elements span (its first element to its last, gaps included), where
    the view is worth sending as one (not contiguous, not empty, no negative stride, a bounded span); else None."""
    if t.layout != torch.strided or t.is_contiguous() or t.numel() == 0 or any(s < 0 for s in t.stride()):
        return None
    span = _span(t.shape, t.stride())
    if span > max(MAX_LAYOUT_SPAN_FACTOR * t.numel(), LAYOUT_SPAN_BYTES // t.element_size()):
        return None
    return t.as_strided((span,), (1,))


def stored_nbytes(t: torch.Tensor) -> int:
    """The bytes `t` takes in a bundle at most (a view that keeps its layout sends the storage it spans)."""
    region = storage_region(t)
    return (region.numel() if region is not None else t.numel()) * t.element_size()


def with_layout_of(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """`values` laid out as `like` is (its strides, and what lies between its elements: a copy of `like`'s storage
    region), where `like` travels as a view (storage_region); else `values` as they are. A transformed input stays
    the view the run gave."""
    region = storage_region(like)
    if region is None or values.shape != like.shape:
        return values
    relaid = torch.as_strided(region.clone(), like.shape, like.stride())
    try:
        relaid.copy_(values)
    except RuntimeError:  # a view with repeated elements (an expand) cannot hold values that differ along them
        return values
    return relaid


def keeps_layout(name: str) -> bool:
    """Whether a bundle value of this name keeps its tensors' layouts (a job's given inputs: `s0/inputs`)."""
    return name.rsplit("/", 1)[-1] in LAYOUT_PARTS


class _Encoder:
    def __init__(self):
        self.tensors: list[torch.Tensor] = []  # what is written: the tensor, or a view's storage region
        self.entries: list[dict] = []  # each one's dtype, shape and (a view's) strides

    def tree(self, value, depth=0, keep_layout=False):
        if depth > MAX_DEPTH:
            raise BundleError("output nesting deeper than 32 levels")
        if isinstance(value, torch.Tensor):
            region = storage_region(value) if keep_layout else None
            entry = {"dtype": str(value.dtype).removeprefix("torch."), "shape": list(value.shape)}
            if region is not None:
                entry["strides"] = list(value.stride())
            self.tensors.append(value if region is None else region)
            self.entries.append(entry)
            return {"t": len(self.tensors) - 1}
        if value is None:
            return {"none": None}
        if isinstance(value, bool | int | float):
            return {"scalar": value}
        if isinstance(value, tuple | list):
            kind = "tuple" if isinstance(value, tuple) else "list"
            return {kind: [self.tree(v, depth + 1, keep_layout) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[str(k), self.tree(v, depth + 1, keep_layout)] for k, v in value.items()]}
        raise BundleError(f"cannot send a {type(value).__name__} (only tensors, numbers, None, tuples, lists, dicts)")


def raw_bytes(t: torch.Tensor) -> memoryview:
    """A tensor's bytes in row-major order (a host copy for device tensors)."""
    t = t.detach().to("cpu").contiguous()
    if t.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2, torch.bool):
        t = t.view(torch.uint8) if t.dtype != torch.bfloat16 else t.view(torch.int16)
    return t.numpy().data.cast("B")


def write_bundle(fd: int, values: dict, meta: dict | None = None, tensor_bytes=None) -> int:
    """Write a bundle to an open file descriptor; returns the bytes written. `tensor_bytes(t)`: the
    tensor's bytes as an iterable of buffers (default: one host copy, raw_bytes)."""
    enc = _Encoder()
    trees = {name: enc.tree(v, keep_layout=keeps_layout(name)) for name, v in values.items()}
    entries, offset = [], 0
    for t, entry in zip(enc.tensors, enc.entries, strict=True):
        if entry["dtype"] not in DTYPES:
            raise BundleError(f"cannot send dtype {t.dtype}")
        nbytes = t.numel() * t.element_size()
        entries.append({**entry, "offset": offset, "nbytes": nbytes})
        offset = _aligned(offset + nbytes)
    header = json.dumps({"meta": meta or {}, "values": trees, "tensors": entries}).encode()
    start = len(MAGIC) + 8
    header += b" " * (_aligned(start + len(header)) - start - len(header))  # data starts aligned
    written = _write_all(fd, MAGIC + struct.pack("<Q", len(header)) + header)
    for t, entry in zip(enc.tensors, entries, strict=True):
        if t.numel():
            for chunk in tensor_bytes(t) if tensor_bytes is not None else [raw_bytes(t)]:
                written += _write_all(fd, chunk)
        pad = _aligned(entry["offset"] + entry["nbytes"]) - entry["offset"] - entry["nbytes"]
        if pad:
            written += _write_all(fd, b"\0" * pad)
    return written


def _aligned(n: int) -> int:
    """Tensors sit at 64-byte boundaries: misaligned float64 views made torch ops ~5x slower."""
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _write_all(fd: int, data) -> int:
    view = memoryview(data)
    total = 0
    while total < len(view):
        total += os.write(fd, view[total : total + (1 << 24)])
    return total


# --- reading (in the trusted parent) ------------------------------------------------------------


def _is_count(value) -> bool:
    """A non-negative int (JSON true is no count, though Python calls bool an int)."""
    return type(value) is int and value >= 0


_ENTRY_KEYS = {"dtype", "shape", "offset", "nbytes"}


def _check_entry(i: int, e, data_len: int) -> tuple[torch.dtype, list[int], int, int, list[int] | None]:
    if not isinstance(e, dict) or set(e) not in (_ENTRY_KEYS, _ENTRY_KEYS | {"strides"}):
        raise BundleError(f"tensor {i}: malformed entry")
    dtype = DTYPES.get(e["dtype"]) if isinstance(e["dtype"], str) else None
    shape, offset, nbytes = e["shape"], e["offset"], e["nbytes"]
    if dtype is None:
        raise BundleError(f"tensor {i}: dtype {e['dtype']!r} not allowed")
    if not (isinstance(shape, list) and len(shape) <= MAX_NDIM and all(_is_count(s) for s in shape)):
        raise BundleError(f"tensor {i}: bad shape {shape!r}")
    if math.prod(max(s, 1) for s in shape) > MAX_ELEMENTS:  # [0, 2**63] holds no bytes yet no tensor has it
        raise BundleError(f"tensor {i}: shape {shape} out of range")
    if not (_is_count(offset) and _is_count(nbytes) and offset % ALIGN == 0):
        raise BundleError(f"tensor {i}: bad offset")
    strides = e.get("strides")
    elements = math.prod(shape)
    if strides is not None:  # a view: its bytes are the storage its elements span
        if not (isinstance(strides, list) and len(strides) == len(shape) and all(_is_count(s) for s in strides)):
            raise BundleError(f"tensor {i}: bad strides {strides!r}")
        if elements == 0 or _span(shape, strides) > MAX_ELEMENTS:
            raise BundleError(f"tensor {i}: strides {strides} out of range for shape {shape}")
        elements = _span(shape, strides)
    if elements * dtype.itemsize != nbytes or offset + nbytes > data_len:
        raise BundleError(f"tensor {i}: size does not match its shape or the file")
    return dtype, shape, offset, nbytes, strides


def _tensor(buffer, base: int, dtype, shape, offset, nbytes, strides=None) -> torch.Tensor:
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype)
    raw = torch.frombuffer(buffer, dtype=torch.uint8, count=nbytes, offset=base + offset)
    if dtype == torch.bool:  # bytes other than 0/1 are not valid bools: normalize
        raw = raw != 0
    else:
        raw = raw.view(dtype)
    if strides is not None:  # checked: every element of the view lies in the region read
        return torch.as_strided(raw, shape, strides)
    return raw.reshape(shape)


def _decode(node, tensors: list[torch.Tensor], state: list[int], depth: int = 0, views: bool = False):
    """A value tree; `views`: whether its tensors may be strided views (a job's given inputs: LAYOUT_PARTS)."""
    state[0] += 1
    if depth > MAX_DEPTH or state[0] > MAX_NODES:
        raise BundleError("value tree too deep or too large")
    if not isinstance(node, dict) or len(node) != 1:
        raise BundleError("malformed value tree")
    ((kind, body),) = node.items()
    if kind == "t":
        if not _is_count(body) or body >= len(tensors):
            raise BundleError("tensor reference out of range")
        if not views and not tensors[body].is_contiguous():  # a view where none travels: no writer makes one
            raise BundleError("a strided tensor outside a job's inputs")
        return tensors[body]
    if kind == "none":
        return None
    if kind == "scalar":
        if not isinstance(body, bool | int | float) or (
            type(body) is int and not SCALAR_INT_RANGE[0] <= body <= SCALAR_INT_RANGE[1]
        ):
            raise BundleError("bad scalar")
        return body
    if kind in ("list", "tuple") and isinstance(body, list):
        items = [_decode(v, tensors, state, depth + 1, views) for v in body]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict" and isinstance(body, list):
        out = {}
        for pair in body:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise BundleError("bad dict entry")
            out[pair[0]] = _decode(pair[1], tensors, state, depth + 1, views)
        return out
    raise BundleError(f"unknown node kind {kind!r}")


def _aligned_buffer(size: int) -> memoryview:
    """A writable buffer of `size` bytes whose start is ALIGN-aligned (bytearray's is not)."""
    raw = torch.empty(size + ALIGN, dtype=torch.uint8)
    shift = (-raw.data_ptr()) % ALIGN
    return raw.numpy().data[shift : shift + size]


def read_bundle(path: str, max_bytes: int) -> tuple[dict, dict]:
    """(meta, values) of a bundle file; raises BundleError for anything malformed."""
    size = os.path.getsize(path)
    if size > max_bytes:
        raise BundleError(f"result of {size} bytes exceeds the {max_bytes}-byte limit")
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_bundle_fd(fd, size)
    finally:
        os.close(fd)


def read_bundle_fd(fd: int, size: int) -> tuple[dict, dict]:
    """The bundle in the first `size` bytes of an open file, copied out (the file may change after)."""
    buffer = _aligned_buffer(size)
    done = 0
    while done < size:
        got = os.preadv(fd, [buffer[done:]], done)
        if got <= 0:
            raise BundleError("short read")
        done += got
    return parse_bundle(buffer, size)


def parse_bundle(buffer, size: int) -> tuple[dict, dict]:
    """(meta, values) of the bundle in `buffer` (ALIGN-aligned, `size` bytes); tensors are views of it."""
    if size < len(MAGIC) + 8 or bytes(buffer[: len(MAGIC)]) != MAGIC:
        raise BundleError("not a result bundle (missing header)")
    (header_len,) = struct.unpack_from("<Q", buffer, len(MAGIC))
    start = len(MAGIC) + 8
    if header_len > MAX_HEADER or start + header_len > size:
        raise BundleError("header length out of range")
    try:
        header = json.loads(bytes(buffer[start : start + header_len]).decode())
    except (UnicodeDecodeError, ValueError) as exc:
        raise BundleError(f"header is not JSON: {exc}") from None
    if not isinstance(header, dict) or not isinstance(header.get("tensors"), list):
        raise BundleError("malformed header")
    base = start + header_len
    data_len = size - base
    try:
        tensors = [_tensor(buffer, base, *_check_entry(i, e, data_len)) for i, e in enumerate(header["tensors"])]
    except (RuntimeError, TypeError, OverflowError) as exc:  # whatever the checks missed is still malformed
        raise BundleError(f"a tensor entry torch refuses: {exc}") from None
    values_node = header.get("values", {})
    meta = header.get("meta", {})
    if not isinstance(values_node, dict) or not isinstance(meta, dict):
        raise BundleError("malformed header")
    state = [0]
    values = {str(k): _decode(v, tensors, state, views=keeps_layout(str(k))) for k, v in values_node.items()}
    return meta, values
