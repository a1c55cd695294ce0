"""bfloat16 with bf16 semantics in Triton's interpreter (the cpu backend).

What the interpreter does (Triton 3.6 and 3.9 alike): a bf16 value is its raw bit pattern in a
numpy uint16 array (`_get_np_dtype(tl.bfloat16)` is uint16), so arithmetic, comparisons, min/max
and reductions on bf16 operate on those integers (1.0 + 0.5 gives 8.5e37); the fp32 -> bf16
cast truncates (`cast_impl` passes no rounding mode), and its round-to-nearest path loses the
carry into the exponent and rounds ties away from zero.

What this module makes it do: a bf16 value lives as a float32 array holding a bf16-exact value.
Every TensorHandle typed bf16 is normalised when it is made: float data is rounded to bf16
(round to nearest even), uint16 / int16 data is taken as bit patterns. So arithmetic runs in
fp32 and each result typed bf16 is rounded once, as the GPU does (bf16 ALU ops and the
fp32-upcast lowering both round every bf16 result). Loads and stores convert bit patterns at
the memory boundary; casts round to nearest even (or toward zero for
`fp_downcast_rounding="rtz"`); `tl.sum` / `tl.cumsum` of bf16 round every partial sum to bf16
(a pairwise tree for sums, like the GPU's butterfly, a running sum for scans); `tl.dot` on bf16
inputs accumulates in fp32. Atomics on bf16 memory are reported as unsupported.
"""

from __future__ import annotations

import functools
import types

import numpy as np

_SMALLEST_NORMAL = 2.0**-126
_SUBNORMAL_QUANTUM_EXP = 133  # bf16 subnormals are multiples of 2^-133


def round_to_bf16(values, toward_zero: bool = False) -> np.ndarray:
    """float32 array of the bf16 values nearest (ties to even) to `values`, or toward zero."""
    v = np.asarray(values, dtype=np.float64)
    rnd = np.trunc if toward_zero else np.rint
    with np.errstate(over="ignore", invalid="ignore"):
        mantissa, exponent = np.frexp(v)
        normal = np.ldexp(rnd(mantissa * 256.0) / 256.0, exponent)
        subnormal = rnd(v * 2.0**_SUBNORMAL_QUANTUM_EXP) * 2.0**-_SUBNORMAL_QUANTUM_EXP
        rounded = np.where(np.abs(v) < _SMALLEST_NORMAL, subnormal, normal)
        return rounded.astype(np.float32)


def bits_to_float32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def float32_to_bits(values: np.ndarray) -> np.ndarray:
    """bf16 bit patterns of bf16-exact float32 values (NaN as the canonical quiet NaN)."""
    exact = round_to_bf16(values)
    bits = (exact.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(exact), np.uint16(0x7FC0), bits)


def _is_bf16(dtype) -> bool:
    return getattr(dtype, "name", None) == "bf16"


def _normalise(data):
    data = np.asarray(data)
    if data.dtype in (np.uint16, np.int16):
        return bits_to_float32(data)
    if data.dtype.kind == "f":
        if data.dtype == np.float32 and not (data.view(np.uint32) & np.uint32(0xFFFF)).any():
            return data  # already bf16-exact
        return round_to_bf16(data)
    return data  # bool: a comparison's result carries its operands' handle dtype


def install(interpreter, limitation) -> None:
    """Patch the interpreter module; `limitation(construct, reason, todo)` builds the error for
    what stays unsupported."""
    import triton.language as tl

    handle_cls, builder_cls = interpreter.TensorHandle, interpreter.InterpreterBuilder
    if getattr(handle_cls, "kernel_eval_bf16", False):
        return
    handle_cls.kernel_eval_bf16 = True

    original_np_dtype, original_validate = interpreter._get_np_dtype, interpreter._validate_np_data_size

    def get_np_dtype(tt_dtype):
        element = getattr(tt_dtype, "element_ty", tt_dtype) if isinstance(tt_dtype, tl.block_type) else tt_dtype
        return np.dtype(np.float32) if _is_bf16(element) else original_np_dtype(tt_dtype)

    def validate_np_data_size(np_array, tl_dtype):
        return True if _is_bf16(tl_dtype) else original_validate(np_array, tl_dtype)

    interpreter._get_np_dtype, interpreter._validate_np_data_size = get_np_dtype, validate_np_data_size

    original_post_init = handle_cls.__post_init__

    def post_init(self):
        if _is_bf16(self.dtype):
            self.data = _normalise(self.data)
        original_post_init(self)

    handle_cls.__post_init__ = post_init
    # Triton 3.6's builder has no get_bf16 (a bf16 constant such as `x_bf16 + 1.0` fails there).
    builder_cls.get_bf16 = lambda self, value: handle_cls(np.array([value], dtype=np.float64), tl.bfloat16)

    def patch(name):
        def decorate(make):
            setattr(builder_cls, name, functools.wraps(getattr(builder_cls, name))(make(getattr(builder_cls, name))))

        return decorate

    @patch("create_masked_load")
    def _(original):
        def create_masked_load(self, ptrs, mask, other, *args, **kwargs):
            if not _is_bf16(ptrs.get_element_ty()):
                return original(self, ptrs, mask, other, *args, **kwargs)
            zeros = types.SimpleNamespace(data=np.zeros(np.shape(ptrs.data), dtype=np.uint16))
            bits = original(
                self,
                types.SimpleNamespace(data=ptrs.data, get_element_ty=lambda: tl.uint16),
                mask,
                zeros,
                *args,
                **kwargs,
            )
            values = bits_to_float32(bits.data)
            if other is not None:
                values = np.where(mask.data, values, np.asarray(other.data, dtype=np.float32))
            return handle_cls(values, tl.bfloat16)

        return create_masked_load

    @patch("create_masked_store")
    def _(original):
        def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
            if _is_bf16(ptrs.get_element_ty()):
                value = types.SimpleNamespace(data=np.ascontiguousarray(float32_to_bits(value.data)))
            return original(self, ptrs, value, mask, *args, **kwargs)

        return create_masked_store

    @patch("cast_impl")
    def _(original):
        def cast_impl(self, src, dst_type):
            src_ty, dst_ty = src.dtype.scalar, dst_type.scalar
            if _is_bf16(dst_ty):  # from any type: one rounding to nearest even
                return handle_cls(np.asarray(src.data).astype(np.float64), dst_ty)
            if _is_bf16(src_ty):
                return handle_cls(np.asarray(src.data).astype(get_np_dtype(dst_ty)), dst_ty)
            return original(self, src, dst_type)

        return cast_impl

    @patch("create_fp_to_fp")
    def _(original):
        def create_fp_to_fp(self, src, dst_type, rounding_mode):
            src_ty, dst_ty = src.dtype.scalar, dst_type.scalar
            if not (_is_bf16(src_ty) or _is_bf16(dst_ty)):
                return original(self, src, dst_type, rounding_mode)
            if _is_bf16(src_ty):  # widen exactly to fp32, then the original conversion
                fp32 = handle_cls(np.asarray(src.data, dtype=np.float32), tl.float32)
                if dst_ty == tl.float32:
                    return fp32
                return (
                    original(self, fp32, dst_type, rounding_mode)
                    if dst_ty.primitive_bitwidth == 8
                    else self.cast_impl(fp32, dst_type)
                )
            if src_ty.primitive_bitwidth == 8:  # fp8 -> fp32 is exact
                src = original(self, src, tl.float32, rounding_mode)
            toward_zero = rounding_mode == interpreter._ir.ROUNDING_MODE.RTZ
            return handle_cls(round_to_bf16(src.data, toward_zero=toward_zero), dst_ty)

        return create_fp_to_fp

    @patch("create_bitcast")
    def _(original):
        def create_bitcast(self, src, dst_type):
            src_ty, dst_ty = src.dtype.scalar, dst_type.scalar
            if _is_bf16(src_ty) and not _is_bf16(dst_ty):
                return handle_cls(float32_to_bits(src.data).view(original_np_dtype(dst_ty)), dst_ty)
            if _is_bf16(dst_ty) and not _is_bf16(src_ty):
                return handle_cls(np.asarray(src.data).view(np.uint16), dst_ty)  # bit patterns
            return original(self, src, dst_type)

        return create_bitcast

    @patch("create_fabs")
    def _(original):
        def create_fabs(self, arg):
            return handle_cls(np.abs(arg.data), arg.dtype.scalar) if _is_bf16(arg.dtype.scalar) else original(self, arg)

        return create_fabs

    @patch("create_fma")
    def _(original):
        def create_fma(self, x, y, z):
            if not _is_bf16(z.dtype.scalar):
                return original(self, x, y, z)
            product = np.multiply(x.data, y.data, dtype=np.float64)  # exact; one rounding at the end
            return handle_cls(np.add(product, z.data, dtype=np.float64), z.dtype.scalar)

        return create_fma

    for name in ("create_atomic_rmw", "create_atomic_cas"):

        @patch(name)
        def _(original, name=name):
            def atomic(self, *args):
                values = [a for a in args if isinstance(a, handle_cls)]
                if any(_is_bf16(getattr(a, "dtype", None)) for a in values[1:]):
                    raise limitation(
                        f"tl.{name.removeprefix('create_')} on bfloat16",
                        "the interpreter's atomics write bf16 memory with the wrong width",
                        "use float32 atomics (accumulate in fp32, cast once), or run on backend='cuda'",
                    )
                return original(self, *args)

            return atomic

    _install_reductions(interpreter, tl)


def _tree_sum_bf16(data: np.ndarray, axis) -> np.ndarray:
    """Pairwise sum along `axis`, every partial sum rounded to bf16."""
    if axis is None:
        data, axis = data.reshape(-1), 0
    x = np.moveaxis(np.asarray(data, dtype=np.float32), axis, 0)
    while x.shape[0] > 1:
        if x.shape[0] % 2:
            x = np.concatenate([x, np.zeros((1,) + x.shape[1:], dtype=np.float32)])
        x = round_to_bf16(x[0::2] + x[1::2])
    return x[0]


def _install_reductions(interpreter, tl) -> None:
    reduce_cls, scan_cls = interpreter.ReduceOps, interpreter.ScanOps
    original_sum, original_cumsum = reduce_cls.sum, scan_cls.cumsum

    def reduce_sum(self, input):
        if not _is_bf16(input.dtype):
            return original_sum(self, input)
        total = _tree_sum_bf16(input.handle.data, self.axis)
        if self.keep_dims:
            total = (
                np.expand_dims(total, self.axis)
                if self.axis is not None
                else total.reshape((1,) * input.handle.data.ndim)
            )
        return self.to_tensor(total if np.ndim(total) else total.item(), input.dtype)

    def scan_cumsum(self, input):
        if not _is_bf16(input.dtype):
            return original_cumsum(self, input)
        x = np.moveaxis(np.asarray(input.handle.data, dtype=np.float32), self.axis, 0)
        out = np.empty_like(x)
        running = np.zeros(x.shape[1:], dtype=np.float32)
        for i in range(x.shape[0]):
            running = round_to_bf16(running + x[i])
            out[i] = running
        return [self.to_tensor(np.moveaxis(out, 0, self.axis), dtype=input.dtype)]

    reduce_cls.sum, scan_cls.cumsum = reduce_sum, scan_cumsum
