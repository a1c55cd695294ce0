"""CUDA libdevice (`__nv_*`, and ROCm's `__ocml_*`) functions for the Triton interpreter, in numpy (torch for a few
special functions).

Triton's interpreter cannot run `extern_elementwise` calls. Kernels reach them through
`triton.language.extra.libdevice` (stubs that compiled Triton maps to the target's library),
`tl.extra.cuda.libdevice` or `triton.language.extra.cuda.libdevice`. The interpreter hooks
(interpreter_compat) route all three through the real cuda libdevice wrappers, so argument types,
broadcasting and the result type are exactly compiled Triton's; only the final symbol lands here.

Precision: every floating function is evaluated in float64 and rounded once to the result type,
which is at least as accurate as libdevice (its fp32 functions have errors of 1-4 ulp; the
`fast_*` variants are hardware approximations whose error stays far below the fp32 thresholds).
Directed-rounding variants (`_rz`, `_rd`, `_ru`) of fp32 results round the float64 value in that
direction; fp64 directed rounding has no wider type here and is reported as unsupported.
"""

from __future__ import annotations

import math
import re

import numpy as np

_ROUNDINGS = ("_rn", "_rz", "_rd", "_ru")


class LibdeviceUnsupported(Exception):
    """A libdevice symbol this emulation does not implement (the caller names the construct)."""


def _torch_special(name):
    def run(x):
        import torch

        return getattr(torch.special, name)(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))).numpy()

    return run


def _vectorized(fn):
    vec = np.vectorize(fn, otypes=[np.float64])
    return lambda *xs: vec(*xs)


def _ieee_remainder(x, y):
    return _vectorized(lambda a, b: math.remainder(a, b) if b != 0 and math.isfinite(a) else math.nan)(x, y)


def _tgamma(x):
    def one(a):
        try:
            return math.gamma(a)
        except (ValueError, OverflowError):
            return math.inf if a > 0 or a == 0 else math.nan

    return _vectorized(one)(x)


def _lgamma(x):
    def one(a):
        try:
            return math.lgamma(a)
        except (ValueError, OverflowError):
            return math.inf

    return _vectorized(one)(x)


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


#: Float functions of float arguments, evaluated in float64 (the symbol without `__nv_`,
#: `fast_`, the fp32 `f` suffix and the rounding suffix).
FLOAT_FUNCTIONS = {
    # one argument
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "cbrt": np.cbrt,
    "ceil": np.ceil,
    "cos": np.cos,
    "cosh": np.cosh,
    "cospi": lambda x: np.cos(np.pi * x),
    "erf": _vectorized(math.erf),
    "erfc": _vectorized(math.erfc),
    "erfinv": _torch_special("erfinv"),
    "erfcinv": lambda x: _torch_special("erfinv")(1.0 - x),
    "erfcx": _torch_special("erfcx"),
    "exp": np.exp,
    "exp10": lambda x: np.power(10.0, x),
    "exp2": np.exp2,
    "expm1": np.expm1,
    "fabs": np.abs,
    "abs": np.abs,
    "floor": np.floor,
    "j0": _torch_special("bessel_j0"),
    "j1": _torch_special("bessel_j1"),
    "y0": _torch_special("bessel_y0"),
    "y1": _torch_special("bessel_y1"),
    "lgamma": _lgamma,
    "tgamma": _tgamma,
    "log": np.log,
    "log10": np.log10,
    "log1p": np.log1p,
    "log2": np.log2,
    "logb": lambda x: np.floor(np.log2(np.abs(x))),
    "nearbyint": np.rint,
    "rint": np.rint,
    "round": _round_half_away,
    "trunc": np.trunc,
    "rcbrt": lambda x: 1.0 / np.cbrt(x),
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "frsqrt": lambda x: 1.0 / np.sqrt(x),
    "saturate": lambda x: np.clip(x, 0.0, 1.0),
    "sin": np.sin,
    "sinh": np.sinh,
    "sinpi": lambda x: np.sin(np.pi * x),
    "sqrt": np.sqrt,
    "fsqrt": np.sqrt,
    "dsqrt": np.sqrt,
    "tan": np.tan,
    "tanh": np.tanh,
    "normcdf": _torch_special("ndtr"),
    "normcdfinv": _torch_special("ndtri"),
    "cyl_bessel_i0": _torch_special("i0"),
    "cyl_bessel_i1": _torch_special("i1"),
    "frcp": lambda x: 1.0 / x,
    "drcp": lambda x: 1.0 / x,
    # two arguments
    "atan2": np.arctan2,
    "copysign": np.copysign,
    "fdim": lambda x, y: np.where(x > y, x - y, 0.0),
    "fmod": np.fmod,
    "hypot": np.hypot,
    "rhypot": lambda x, y: 1.0 / np.hypot(x, y),
    "pow": np.power,
    "powi": np.power,
    "remainder": _ieee_remainder,
    "ldexp": lambda x, e: np.ldexp(x, e.astype(np.int32)),
    "scalbn": lambda x, e: np.ldexp(x, e.astype(np.int32)),
    "fadd": np.add,
    "dadd": np.add,
    "fsub": np.subtract,
    "dsub": np.subtract,
    "fmul": np.multiply,
    "dmul": np.multiply,
    "fdiv": np.divide,
    "ddiv": np.divide,
    "fdivide": np.divide,
    "nextafter": None,  # handled at the result precision below
    # three and four arguments
    "fma": lambda x, y, z: x * y + z,
    "norm3d": lambda x, y, z: np.sqrt(x * x + y * y + z * z),
    "rnorm3d": lambda x, y, z: 1.0 / np.sqrt(x * x + y * y + z * z),
    "norm4d": lambda x, y, z, w: np.sqrt(x * x + y * y + z * z + w * w),
    "rnorm4d": lambda x, y, z, w: 1.0 / np.sqrt(x * x + y * y + z * z + w * w),
}

#: Predicates and integer-valued functions of floats (result type from the signature).
FLOAT_PREDICATES = {
    "isinf": np.isinf,
    "isnan": np.isnan,
    "finite": np.isfinite,
    "isfinite": np.isfinite,
    "signbit": np.signbit,
    "ilogb": lambda x: np.floor(np.log2(np.abs(x))),
    "llrint": np.rint,
    "llround": _round_half_away,
}

_INT_ROUNDING = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}


def _clz(x):
    bits = x.dtype.itemsize * 8
    u = x.view(f"uint{bits}").astype(np.uint64)
    out = np.full(u.shape, bits, dtype=np.int32)
    for i in range(bits):  # position of the highest set bit
        out = np.where((u >> np.uint64(i)) & np.uint64(1), bits - 1 - i, out)
    return out


def _popc(x):
    bits = x.dtype.itemsize * 8
    u = x.view(f"uint{bits}").astype(np.uint64)
    return sum(((u >> np.uint64(i)) & np.uint64(1)).astype(np.int32) for i in range(bits))


def _brev(x):
    bits = x.dtype.itemsize * 8
    u = x.view(f"uint{bits}").astype(np.uint64)
    out = np.zeros_like(u)
    for i in range(bits):
        out |= ((u >> np.uint64(i)) & np.uint64(1)) << np.uint64(bits - 1 - i)
    return out.astype(f"uint{bits}").view(x.dtype)


def _ffs(x):
    bits = x.dtype.itemsize * 8
    u = x.view(f"uint{bits}").astype(np.uint64)
    out = np.zeros(u.shape, dtype=np.int32)
    for i in reversed(range(bits)):  # position (1-based) of the lowest set bit
        out = np.where((u >> np.uint64(i)) & np.uint64(1), i + 1, out)
    return out


def _mulhi(x, y):
    bits = x.dtype.itemsize * 8
    if bits == 64:
        f = np.vectorize(lambda a, b: (int(a) * int(b)) >> 64, otypes=[object])
        r = f(x, y)
        mask = (1 << 64) - 1
        return np.array([int(v) & mask for v in np.ravel(r)], dtype=np.uint64).reshape(np.shape(r)).view(x.dtype)
    wide = np.int64 if x.dtype.kind == "i" else np.uint64
    return ((x.astype(wide) * y.astype(wide)) >> bits).astype(x.dtype)


def _mul24(x, y):
    mask = 0xFFFFFF
    wide = np.int64 if x.dtype.kind == "i" else np.uint64
    lo = lambda v: (v.astype(wide) & mask) - ((v.astype(wide) & 0x800000) << 1 if x.dtype.kind == "i" else 0)  # noqa: E731
    return (lo(x) * lo(y)).astype(x.dtype)


INTEGER_FUNCTIONS = {
    "clz": _clz,
    "clzll": _clz,
    "popc": _popc,
    "popcll": _popc,
    "brev": _brev,
    "brevll": _brev,
    "ffs": _ffs,
    "ffsll": _ffs,
    "mulhi": _mulhi,
    "umulhi": _mulhi,
    "mul64hi": _mulhi,
    "umul64hi": _mulhi,
    "mul24": _mul24,
    "umul24": _mul24,
    "abs": np.abs,
    "llabs": np.abs,
    "hadd": lambda x, y: ((x.astype(np.int64) + y.astype(np.int64)) >> 1).astype(x.dtype),
    "rhadd": lambda x, y: ((x.astype(np.int64) + y.astype(np.int64) + 1) >> 1).astype(x.dtype),
    "uhadd": lambda x, y: ((x.astype(np.uint64) + y.astype(np.uint64)) >> np.uint64(1)).astype(x.dtype),
    "urhadd": lambda x, y: ((x.astype(np.uint64) + y.astype(np.uint64) + np.uint64(1)) >> np.uint64(1)).astype(x.dtype),
    "sad": lambda x, y, z: (np.abs(x.astype(np.int64) - y.astype(np.int64)) + z).astype(z.dtype),
    "usad": lambda x, y, z: (np.abs(x.astype(np.int64) - y.astype(np.int64)) + z).astype(z.dtype),
}

_BIT_CASTS = (
    "float_as_int",
    "float_as_uint",
    "int_as_float",
    "uint_as_float",
    "double_as_longlong",
    "longlong_as_double",
)


def _round_to_float32(value64: np.ndarray, mode: str) -> np.ndarray:
    """float64 -> float32 rounded to nearest even (rn) or toward zero / -inf / +inf."""
    nearest = value64.astype(np.float32)
    if mode == "rn":
        return nearest
    back = nearest.astype(np.float64)
    with np.errstate(invalid="ignore"):
        too_big, too_small = back > value64, back < value64
    down = np.nextafter(nearest, np.float32(-np.inf))
    up = np.nextafter(nearest, np.float32(np.inf))
    if mode == "rd":
        return np.where(too_big, down, nearest)
    if mode == "ru":
        return np.where(too_small, up, nearest)
    toward_zero = np.where(value64 >= 0, np.where(too_big, down, nearest), np.where(too_small, up, nearest))
    return toward_zero.astype(np.float32)


def _split(name: str) -> tuple[str, str]:
    """'__nv_fadd_rz' -> ('fadd', 'rz'); '__nv_fast_expf' -> ('expf', 'rn'); the ROCm library's
    '__ocml_tanh_f32' -> ('tanh', 'rn')."""
    if name.startswith("__ocml_"):
        return re.sub(r"_f(16|32|64)$", "", name.removeprefix("__ocml_")).removeprefix("native_"), "rn"
    base = name.removeprefix("__nv_").removeprefix("fast_")
    for suffix in _ROUNDINGS:
        if base.endswith(suffix):
            return base[: -len(suffix)], suffix[1:]
    return base, "rn"


def _lookup(base: str, table: dict):
    if base in table:
        return base
    if base.endswith("f") and base[:-1] in table:
        return base[:-1]
    if base.endswith("d") and base[:-1] in table:  # isinfd, isnand, signbitd, isfinited
        return base[:-1]
    return None


def evaluate(symbol: str, args: list[np.ndarray], out_dtype: np.dtype) -> np.ndarray:
    """The value of libdevice `symbol` on numpy `args`, as `out_dtype`. Raises LibdeviceUnsupported."""
    base, mode = _split(symbol)
    out_dtype = np.dtype(out_dtype)
    if base in _BIT_CASTS:
        return args[0].view(out_dtype)
    if base == "double2hiint":
        return (args[0].view(np.int64) >> 32).astype(np.int32)
    if base == "double2loint":
        return (args[0].view(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    if base == "hiloint2double":
        hi, lo = args[0].astype(np.int64), args[1].view(np.uint32).astype(np.int64)
        return ((hi << 32) | lo).view(np.float64)
    if "2" in base and base.split("2")[0] in ("float", "double", "int", "uint", "ll", "ull"):
        return _convert(base, mode, args[0], out_dtype)
    if base == "nextafter":
        x, y = (a.astype(out_dtype) for a in args)
        return np.nextafter(x, y)
    if base == "byte_perm":
        raise LibdeviceUnsupported(f"{symbol} (byte permutation) is not emulated")
    if args and all(a.dtype.kind in "iub" for a in args) and out_dtype.kind in "iu":
        key = _lookup(base, INTEGER_FUNCTIONS)
        if key is not None:
            return np.asarray(INTEGER_FUNCTIONS[key](*args)).astype(out_dtype)
    key = _lookup(base, FLOAT_PREDICATES)
    if key is not None and out_dtype.kind in "iub":
        with np.errstate(all="ignore"):
            value = FLOAT_PREDICATES[key](args[0].astype(np.float64))
        if out_dtype.kind in "iu" and value.dtype.kind == "f":
            value = np.where(np.isfinite(value), value, np.iinfo(out_dtype).min)
        return value.astype(out_dtype)
    key = _lookup(base, FLOAT_FUNCTIONS)
    if key is None or FLOAT_FUNCTIONS[key] is None:
        raise LibdeviceUnsupported(f"{symbol} is not emulated for the interpreter")
    if mode != "rn" and out_dtype != np.float32:
        raise LibdeviceUnsupported(f"{symbol}: directed rounding of float64 results has no wider type to round from")
    with np.errstate(all="ignore"):
        value = np.asarray(FLOAT_FUNCTIONS[key](*[a.astype(np.float64) for a in args]), dtype=np.float64)
    if out_dtype == np.float32:
        return _round_to_float32(value, mode)
    return value.astype(out_dtype)


def _convert(base: str, mode: str, x: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """float2int_rz, int2float_rd, double2float_ru, ll2double_rn, ... (the `X2Y` conversions)."""
    if out_dtype.kind in "iu":
        with np.errstate(all="ignore"):
            rounded = _INT_ROUNDING[mode](x.astype(np.float64))
            info = np.iinfo(out_dtype)
            rounded = np.where(np.isnan(rounded), 0, np.clip(rounded, info.min, info.max))
        return rounded.astype(out_dtype)
    if out_dtype == np.float32:
        if x.dtype.kind in "iu" and x.dtype.itemsize == 8 and mode != "rn":
            raise LibdeviceUnsupported(f"__nv_{base}_{mode}: directed rounding of 64-bit integers is not emulated")
        return _round_to_float32(x.astype(np.float64), mode)
    if mode != "rn" and x.dtype.itemsize == 8:
        raise LibdeviceUnsupported(f"__nv_{base}_{mode}: directed rounding of 64-bit integers is not emulated")
    return x.astype(out_dtype)
