"""The interpreter compatibility layer (sandbox/harness/interpreter_compat.py): compiled Triton's
behaviour on the cpu backend, and the interpreter's limits reported as `unsupported`.

Checks that patch Triton run in a subprocess with TRITON_INTERPRET=1 (the patches are
process-wide); verdicts go through run_accuracy and the sandbox like a user's call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from sandbox.harness import interpreter_bf16, libdevice_numpy
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def interpret(script: str) -> str:
    """Run `script` in a fresh interpreter-mode process with the compatibility layer installed."""
    prelude = "from sandbox.harness import interpreter_compat\ninterpreter_compat.install()\n"
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": ROOT}
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def run(candidate: str, reference: str = VECTOR_ADD_REFERENCE):
    return run_accuracy(RunAccuracyRequest(reference=reference, candidate=candidate, backend="cpu", num_seeds=1))


def test_scalar_arguments_are_typed_as_compiled_triton_types_them():
    out = interpret("""
        import torch, triton, triton.language as tl

        @triton.jit
        def k(out_ptr, x_ptr, eps, n, big, huge):
            tl.static_assert(eps.dtype == tl.float32)
            tl.static_assert(n.dtype == tl.int32)
            tl.static_assert(big.dtype == tl.int64)
            tl.static_assert(huge.dtype == tl.uint64)
            x = tl.load(x_ptr + tl.arange(0, 4))
            tl.static_assert((x * eps).dtype == tl.float32)  # fp16 * fp32 scalar promotes
            tl.store(out_ptr + tl.arange(0, 4), (x * eps).to(tl.float32) + eps.to(tl.float32) + (big - big))

        out = torch.empty(4)
        k[(1,)](out, torch.ones(4, dtype=torch.float16), 0.5, 7, 2**40, 2**63 + 1)
        print(out.tolist())
    """)
    assert out.strip() == "[1.0, 1.0, 1.0, 1.0]"


def test_the_active_driver_answers_for_the_cpu_device():
    out = interpret("""
        import triton
        from triton.runtime import driver
        device = triton.runtime.driver.active.get_active_torch_device()
        target = driver.active.get_current_target()
        props = driver.active.utils.get_device_properties(device.index)
        stream = driver.active.get_current_stream()
        print(device.type, target.backend, target.arch, props["multiprocessor_count"] > 0, stream)
    """)
    assert out.split() == ["cpu", "cuda", "90", "True", "0"]


LIBDEVICE_SCRIPT = """
    import math, torch, triton, triton.language as tl
    from triton.language.extra import libdevice
    from triton.language.extra.libdevice import tanh as tanh_by_name
    import triton.language.extra.cuda.libdevice as cuda_libdevice

    @triton.jit
    def unary(x_ptr, out_ptr, WHICH: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 64))
        if WHICH == 0:
            y = tanh_by_name(x)
        elif WHICH == 1:
            y = libdevice.rsqrt(x)
        elif WHICH == 2:
            y = tl.extra.cuda.libdevice.erf(x)
        elif WHICH == 3:
            y = cuda_libdevice.exp2(x)
        elif WHICH == 4:
            y = libdevice.log2(x)
        elif WHICH == 5:
            y = libdevice.log1p(x)
        elif WHICH == 6:
            y = libdevice.expm1(x)
        elif WHICH == 7:
            y = libdevice.pow(x, 1.5)
        elif WHICH == 8:
            y = 1.0 / (1.0 + libdevice.fast_expf(-x))
        elif WHICH == 9:
            y = libdevice.fast_logf(x)
        elif WHICH == 10:
            y = libdevice.erfinv(x / 8.0)
        else:
            y = libdevice.div_rz(x, 3.0)
        tl.store(out_ptr + tl.arange(0, 64), y)

    def expected(x):
        return [torch.tanh(x), torch.rsqrt(x), torch.erf(x), torch.exp2(x), torch.log2(x), torch.log1p(x),
                torch.expm1(x), x ** 1.5, torch.sigmoid(x), torch.log(x), torch.special.erfinv(x / 8), x / 3]

    x64 = torch.linspace(0.01, 4.0, 64, dtype=torch.float64)
    worst = []
    for dtype in (torch.float32, torch.float64):
        x = x64.to(dtype)
        for which, want in enumerate(expected(x.double())):
            if which in (7, 8, 9, 11) and dtype == torch.float64:
                continue  # fp32-only intrinsics, or a float literal (fp32) beside fp64
            out = torch.empty(64, dtype=dtype)
            unary[(1,)](x, out, WHICH=which)
            assert out.dtype == dtype
            worst.append(float(((out.double() - want) / want).abs().max()))
    print(max(worst))
"""


def test_libdevice_functions_through_every_import_path():
    worst = float(interpret(LIBDEVICE_SCRIPT))
    assert worst < 2**-21  # fp32 rounding; the fp64 variants are much closer


def test_libdevice_keeps_compiled_tritons_type_rules():
    out = interpret("""
        import torch, triton, triton.language as tl
        from triton.language.extra import libdevice

        @triton.jit
        def k(x_ptr, out_ptr):
            tl.store(out_ptr + tl.arange(0, 4), libdevice.tanh(tl.load(x_ptr + tl.arange(0, 4))))

        try:
            k[(1,)](torch.ones(4, dtype=torch.float16), torch.empty(4, dtype=torch.float16))
        except Exception as exc:
            print(type(exc.__cause__).__name__)
    """)
    assert out.strip() == "KeyError"  # compiled Triton rejects fp16 for libdevice.tanh the same way


@pytest.mark.parametrize(
    ("symbol", "args", "want"),
    [
        ("__nv_fadd_rz", [np.float32(1), np.float32(2**-30)], np.float32(1)),
        ("__nv_fadd_ru", [np.float32(1), np.float32(2**-30)], np.nextafter(np.float32(1), np.float32(2))),
        ("__nv_fadd_rd", [np.float32(-1), np.float32(-(2**-30))], np.nextafter(np.float32(-1), np.float32(-2))),
        ("__nv_float2int_rz", [np.float32(-2.7)], np.int32(-2)),
        ("__nv_float2int_rd", [np.float32(-2.2)], np.int32(-3)),
        ("__nv_roundf", [np.float32(2.5)], np.float32(3)),
        ("__nv_rintf", [np.float32(2.5)], np.float32(2)),
        ("__nv_clz", [np.int32(1)], np.int32(31)),
        ("__nv_popc", [np.int32(-1)], np.int32(32)),
        ("__nv_float_as_int", [np.float32(1)], np.int32(0x3F800000)),
        ("__nv_isnanf", [np.float32("nan")], np.int32(1)),
    ],
)
def test_libdevice_rounding_modes_and_bit_functions(symbol, args, want):
    got = libdevice_numpy.evaluate(symbol, [np.array([a]) for a in args], np.asarray(want).dtype)
    assert got.dtype == np.asarray(want).dtype and got[0] == want


def test_an_unemulated_libdevice_function_is_unsupported_at_its_call():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl
        from triton.language.extra import libdevice

        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m)
            y = libdevice.jn(2, x)
            tl.store(out_ptr + offs, y, mask=m)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                k[(1,)](x, out, x.numel(), BLOCK=1024)
                return out
    """)
    r = run(candidate)
    assert r.verdict == "unsupported" and r.error.type == "unsupported"
    assert r.error.line == 10 and "libdevice.jn" in r.error.source_line
    assert "__nv_jnf" in r.error.message and "cuda" in r.error.hint


def test_inline_asm_is_unsupported_with_the_reason_and_what_to_do():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
            tl.store(out_ptr + offs, y, mask=offs < n)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                k[(1,)](x, out, x.numel(), BLOCK=1024)
                return out
    """)
    r = run(candidate)
    assert r.verdict == "unsupported" and r.error.line == 8 and "inline_asm_elementwise" in r.error.source_line
    assert "inline PTX" in r.error.message and "cuda" in r.error.hint
    assert r.summary.startswith("UNSUPPORTED")


def test_an_error_inside_a_nested_helper_points_at_the_construct():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def _inner(x):
            return x + tl.arange(0, 3)

        @triton.jit
        def _outer(x):
            return _inner(x) * 2

        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = _outer(tl.load(x_ptr + offs, mask=offs < n))
            tl.store(out_ptr + offs, x, mask=offs < n)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                k[(1,)](x, out, x.numel(), BLOCK=1024)
                return out
    """)
    r = run(candidate)
    assert r.verdict == "runtime_error" and r.error.type == "ValueError"
    assert r.error.line == 6 and "tl.arange(0, 3)" in r.error.source_line and "power of 2" in r.error.message
    assert any("_outer" in t for t in r.error.traceback)


STATIC_ASSERT_AUTOTUNE = """
import torch, torch.nn as nn, triton, triton.language as tl

@triton.autotune([triton.Config({"BLOCK": b}) for b in BLOCKS], key=["n"])
@triton.jit
def k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 256, "BLOCK must be at least 256")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

class ModelNew(nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        k[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, out, x.numel())
        return out
"""


def test_autotune_prunes_configs_whose_static_assert_fails():
    r = run("BLOCKS = [64, 128, 256, 512]\n" + STATIC_ASSERT_AUTOTUNE)
    assert r.verdict == "pass", r.summary


def test_a_failing_static_assert_is_a_compile_error_at_its_line():
    r = run("BLOCKS = [64]\n" + STATIC_ASSERT_AUTOTUNE)
    assert r.verdict == "compile_error" and r.error.type == "CompileTimeAssertionFailure"
    assert r.error.line == 8 and "BLOCK must be at least 256" in r.error.message


def test_bf16_rounding_matches_torch_bit_for_bit():
    import torch

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(20000, generator=gen) * torch.exp2(torch.randint(-140, 130, (20000,), generator=gen).float())
    x = torch.cat([x, torch.tensor([0.0, -0.0, float("inf"), float("-inf"), 3.3895e38, 1.0 + 2**-8, 1.0 + 3 * 2**-8])])
    ours = interpreter_bf16.round_to_bf16(x.numpy())
    theirs = x.bfloat16().float().numpy()
    assert np.array_equal(ours.view(np.uint32), theirs.view(np.uint32))
    toward_zero = interpreter_bf16.round_to_bf16(
        np.float32([1.0 + 255 * 2**-16, -(1.0 + 255 * 2**-16)]), toward_zero=True
    )
    assert toward_zero.tolist() == [1.0, -1.0]
    bits = interpreter_bf16.float32_to_bits(theirs)
    assert np.array_equal(interpreter_bf16.bits_to_float32(bits)[~np.isnan(theirs)], theirs[~np.isnan(theirs)])


def test_bf16_kernels_compute_with_bf16_semantics():
    out = interpret("""
        import torch, triton, triton.language as tl

        @triton.jit
        def k(x_ptr, y_ptr, add_ptr, cast_ptr, rtz_ptr, max_ptr, bits_ptr, sum_ptr, fma_ptr, desc_ptr):
            i = tl.arange(0, 8)
            x = tl.load(x_ptr + i)
            y = tl.load(y_ptr + i)
            tl.store(add_ptr + i, x * y + x)                    # bf16 arithmetic, each result rounded
            wide = x.to(tl.float32) * 1.00390625
            tl.store(cast_ptr + i, wide.to(tl.bfloat16))        # round to nearest even
            tl.store(rtz_ptr + i, wide.to(tl.bfloat16, fp_downcast_rounding="rtz"))
            tl.store(max_ptr + i, tl.maximum(x, y))
            tl.store(bits_ptr + i, x.to(tl.int16, bitcast=True))
            tl.store(sum_ptr, tl.sum(x, axis=0))
            tl.store(fma_ptr + i, tl.fma(x, y, x))
            desc = tl.make_tensor_descriptor(x_ptr, shape=[8], strides=[1], block_shape=[8])
            tl.store(desc_ptr + i, desc.load([0]) + 1.0)

        x = torch.tensor([1.0, -2.0, 3.5, 1.9921875, -0.5, 100.0, 1e-3, -7.0]).bfloat16()
        y = torch.tensor([0.5, 1.0, -3.5, 0.0078125, -0.25, 1.0, 1.0, 3.0]).bfloat16()
        outs = [torch.empty(8, dtype=torch.bfloat16) for _ in range(4)] + [torch.empty(8, dtype=torch.int16)]
        outs += [torch.empty(n, dtype=torch.bfloat16) for n in (1, 8, 8)]
        k[(1,)](x, y, *outs)
        wide = x.float() * 1.00390625
        want = [x * y + x, wide.bfloat16(), None, torch.maximum(x, y), x.view(torch.int16), None, x * y + x, x + 1]
        for i, (got, w) in enumerate(zip(outs, want)):
            if w is not None:
                assert torch.equal(got, w), (i, got, w)
        assert torch.all(outs[2].float().abs() <= wide.abs())
        assert torch.all((outs[2].float() - wide).abs() < wide.abs() / 64)
        assert abs(outs[5].float().item() - x.float().sum().item()) < 1.0
        print("ok")
    """)
    assert out.strip() == "ok"


def test_bf16_atomics_are_unsupported_not_memory_corruption():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.atomic_add(out_ptr + offs, x, mask=offs < n)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.zeros_like(x)
                k[(1,)](x, out, x.numel(), BLOCK=1024)
                return out
    """)
    r = run_accuracy(
        RunAccuracyRequest(
            reference=VECTOR_ADD_REFERENCE.replace("x + y", "x"),
            candidate=candidate,
            backend="cpu",
            num_seeds=1,
            dtype="bfloat16",
        )
    )
    assert r.verdict == "unsupported" and r.error.line == 8 and "atomic_add" in r.error.source_line
    assert "bfloat16" in r.error.message and "float32" in r.error.hint


def test_the_rocm_libdevice_runs_too():
    out = interpret("""
        import torch, triton, triton.language as tl
        from triton.language.extra.hip import libdevice as hip_libdevice

        @triton.jit
        def k(x_ptr, y_ptr):
            x = tl.load(x_ptr + tl.arange(0, 8))
            tl.store(y_ptr + tl.arange(0, 8), hip_libdevice.tanh(x) + hip_libdevice.exp2(x))

        x, y = torch.randn(8), torch.empty(8)
        k[(1,)](x, y)
        print(float((y - torch.tanh(x) - torch.exp2(x)).abs().max()) < 1e-6)
    """)
    assert out.strip() == "True"


def test_and_or_not_on_block_tensors_compute_elementwise():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr, NEGATE: tl.constexpr, NEVER: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m, other=0.0)
            keep = (x > 0) and (offs % 2 == 0)
            drop = not ((x < -1) or (offs % 3 == 0))
            if NEGATE and n > 0:  # a constexpr and a scalar tensor
                x = -x
            if NEVER and x.does_not_exist:  # a false constexpr short-circuits: never evaluated
                x = x + 1
            tl.store(out_ptr + offs, tl.where(keep, x, 0.0) + tl.where(drop, 1.0, 0.0), mask=m)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                k[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256, NEGATE=True, NEVER=False)
                return out
    """)
    reference = VECTOR_ADD_REFERENCE.replace(
        "return x + y",
        "i = torch.arange(x.numel())\n"
        "        keep, drop = (x > 0) & (i % 2 == 0), ~((x < -1) | (i % 3 == 0))\n"
        "        return torch.where(keep, -x, 0.0) + drop.float()",
    )
    r = run(candidate, reference)
    assert r.verdict == "pass", r.summary


def test_and_of_two_dimensional_masks_is_elementwise():
    reference = textwrap.dedent("""
        import torch, torch.nn as nn

        class Model(nn.Module):
            def forward(self, x):
                return x.sum(dim=0)

        def get_inputs():
            return [torch.randn(48, 20)]

        def get_init_inputs():
            return []
    """)
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def column_sums(x_ptr, out_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
            rows = tl.arange(0, BLOCK_R)[:, None]
            cols = tl.arange(0, BLOCK_C)[None, :]
            row_mask = rows < R
            col_mask = cols < C
            mask = row_mask and col_mask
            x = tl.load(x_ptr + rows * BLOCK_C + cols, mask=mask, other=0.0)
            c = tl.arange(0, BLOCK_C)
            tl.store(out_ptr + c, tl.sum(x, axis=0), mask=c < C)

        class ModelNew(nn.Module):
            def forward(self, x):
                padded = torch.ones(64, 32, dtype=x.dtype)  # the padding is 1: a wrong mask shows
                padded[: x.shape[0], : x.shape[1]] = x
                out = torch.empty(x.shape[1], dtype=x.dtype)
                column_sums[(1,)](padded, out, x.shape[0], x.shape[1], BLOCK_R=64, BLOCK_C=32)
                return out
    """)
    r = run(candidate, reference)
    assert r.verdict == "pass", r.summary


def test_a_dtype_argument_is_a_constexpr_with_a_value():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def lowest(dtype):
            dtype_ = dtype.value  # compiled Triton passes the dtype as a constexpr
            if dtype_ == tl.float32:
                return -3.4028234663852886e38
            return -65504.0

        @triton.jit
        def k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, DTYPE: tl.constexpr):
            tl.static_assert(DTYPE.value == tl.float32)
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m, other=lowest(x_ptr.dtype.element_ty))
            y = tl.load(y_ptr + offs, mask=m, other=lowest(DTYPE))
            tl.store(out_ptr + offs, tl.maximum(x, y), mask=m)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                k[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256, DTYPE=tl.float32)
                return out
    """)
    r = run(candidate, VECTOR_ADD_REFERENCE.replace("x + y", "torch.maximum(x, y)"))
    assert r.verdict == "pass", r.summary


def test_fp8_downcasts_round_to_nearest_even():
    candidate = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m) * 4.0
            e4 = x.to(tl.float8e4nv).to(tl.float32)
            e5 = tl.cast(x * 64.0, tl.float8e5).to(tl.float32)
            tiny = (x * 2.0**-12).to(tl.float16).to(tl.float8e4nv).to(tl.float32)  # subnormals
            tl.store(out_ptr + offs, e4 + e5 + tiny * 2.0**12, mask=m)

        class ModelNew(nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                k[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
                return out
    """)
    reference = VECTOR_ADD_REFERENCE.replace(
        "return x + y",
        "x = x * 4\n"
        "        e4 = x.to(torch.float8_e4m3fn).to(x.dtype)\n"
        "        e5 = (x * 64).to(torch.float8_e5m2).to(x.dtype)\n"
        "        tiny = (x * 2.0**-12).half().to(torch.float8_e4m3fn).to(x.dtype)\n"
        "        return e4 + e5 + tiny * 2.0**12",
    )
    r = run(candidate, reference)
    assert r.verdict == "pass", r.summary


def test_fp8_downcasts_saturate_keep_nan_and_honour_rtz_as_the_h200_does():
    out = interpret("""
        import torch, triton, triton.language as tl

        @triton.jit
        def k(x_ptr, e4_ptr, e5_ptr, e5z_ptr):
            i = tl.arange(0, 8)
            x = tl.load(x_ptr + i)
            tl.store(e4_ptr + i, x.to(tl.float8e4nv).to(tl.float32))
            tl.store(e5_ptr + i, x.to(tl.float8e5).to(tl.float32))
            tl.store(e5z_ptr + i, x.to(tl.float8e5, fp_downcast_rounding="rtz").to(tl.float32))

        x = torch.tensor([1.0 + 2**-4, 1.0 + 3 * 2**-4, 1.0 + 15 * 2**-5, -17.5, 1e6, -float("inf"), float("nan"), 3.0])
        outs = [torch.empty(8) for _ in range(3)]
        k[(1,)](x, *outs)
        for o in outs:
            print(o.tolist())
    """)
    e4, e5, e5z = out.splitlines()[:3]
    # ties to even (1.0625 -> 1.0, 1.1875 -> 1.25), the carry into the exponent (1.46875 -> 1.5),
    # saturation of finite and infinite values (cvt.rn.satfinite on sm_90), NaN kept (0x7F)
    assert e4 == str([1.0, 1.25, 1.5, -18.0, 448.0, -448.0, float("nan"), 3.0])
    assert e5 == str([1.0, 1.25, 1.5, -16.0, 57344.0, -57344.0, float("nan"), 3.0])
    # rtz truncates, saturates finite values and keeps infinities (as compiled Triton on the H200)
    assert e5z == str([1.0, 1.0, 1.25, -16.0, 57344.0, -float("inf"), float("nan"), 3.0])


def test_rtz_to_float8e4nv_is_refused_as_compiled_triton_refuses_it():
    candidate = VECTOR_ADD_CANDIDATE.replace(
        "tl.store(out_ptr + offsets, x + y, mask=mask)",
        'tl.store(out_ptr + offsets, (x + y).to(tl.float8e4nv, fp_downcast_rounding="rtz").to(tl.float32), mask=mask)',
    )
    assert candidate != VECTOR_ADD_CANDIDATE
    r = run(candidate)
    assert r.verdict == "runtime_error" and r.error.type == "CompileTimeError", r.error
    assert "rtz" in r.error.message and "float8e4nv" in r.error.source_line and "rtne" in r.error.hint
    assert "error.hint says how" in r.next_step


def test_module_level_aliases_of_tl_builtins_work_as_compiled():
    candidate = VECTOR_ADD_CANDIDATE.replace(
        "import triton.language as tl\n", "import triton.language as tl\n\nto_fp32 = tl.cast\npick = tl.where\n", 1
    ).replace(
        "tl.store(out_ptr + offsets, x + y, mask=mask)",
        "tl.store(out_ptr + offsets, pick(mask, to_fp32(x, tl.float32) + y, 0.0), mask=mask)",
    )
    assert "pick(mask" in candidate and "to_fp32 = tl.cast" in candidate
    r = run(candidate)
    assert r.verdict == "pass", (r.summary, r.error)


PACE_REFERENCE = """
import torch
import torch.nn as nn

N = 1 << 20


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
"""

PACE_CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 16),)](x, out, x.numel(), BLOCK=16)  # 65,536 programs
        return out
"""


def test_a_launch_the_interpreter_cannot_finish_in_time_is_stopped_with_its_estimate():
    """65,536 programs at a few thousand a second: tens of seconds, over a 12 s timeout. The pace check
    answers `unsupported` with the estimate about 2 s into the launch instead of running into the timeout."""
    started = time.monotonic()
    result = run_accuracy(
        RunAccuracyRequest(reference=PACE_REFERENCE, candidate=PACE_CANDIDATE, backend="cpu", timeout_s=12, num_seeds=1)
    )
    assert result.verdict == "unsupported", result.summary
    assert "65,536 programs" in result.summary and "programs/s" in result.summary, result.summary
    assert result.error is not None and "smaller shapes" in (result.error.hint or "")
    assert time.monotonic() - started < 12 + 5  # never the whole timeout plus a retry


def test_helpers_patch_the_language_once_per_launch_and_integers_wrap_unchecked():
    """The speed pieces change no value: a helper of another module (with an alias of a builtin) called many
    times per program gives the same result on every launch while the language is patched once per module and
    launch, and int32 arithmetic wraps as compiled Triton's does without the overflow check's int64 work."""
    out = interpret("""
        import sys, types, torch, triton, triton.language as tl
        from triton.runtime import interpreter
        from triton.language import semantic

        helpers = types.ModuleType("helpers")
        exec(
            "import triton, triton.language as tl\\n"
            "widen = tl.cast\\n"
            "@triton.jit\\n"
            "def swap(a, b):\\n"
            "    return tl.minimum(a, b), widen(tl.maximum(a, b), tl.float32)\\n",
            helpers.__dict__,
        )
        sys.modules["helpers"] = helpers

        @triton.jit
        def k(x_ptr, o_ptr, i_ptr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            a = tl.load(x_ptr + offs)
            b = a * 0.5
            for _ in range(20):
                a, b = helpers.swap(a, b)
            tl.store(o_ptr + offs, a - b)
            tl.store(i_ptr + offs, tl.load(i_ptr + offs) * 2147483647 + 7)

        patches, checks = [], []
        patch_core = interpreter._patch_lang_core  # called once per language module a patch finds
        def counted(lang, scope):
            patches.append(sys._getframe(1).f_locals["fn"].__name__)
            return patch_core(lang, scope)
        interpreter._patch_lang_core = counted
        sanitize = semantic.TritonSemantic.binary_op_sanitize_overflow_impl
        def sanitize_counted(self, *args, **kwargs):
            checks.append(self.builder.options.sanitize_overflow)
            return sanitize(self, *args, **kwargs)
        semantic.TritonSemantic.binary_op_sanitize_overflow_impl = sanitize_counted
        x = torch.randn(64)
        for launch in range(2):
            o, i = torch.empty(64), torch.arange(64, dtype=torch.int32)
            k[(4,)](x, o, i, BLOCK=16)
            want = torch.minimum(x, 0.5 * x) - torch.maximum(x, 0.5 * x)
            assert torch.equal(o, want), (launch, o, want)
            wrapped = (torch.arange(64, dtype=torch.int64) * 2147483647 + 7 + 2**31) % 2**32 - 2**31
            assert torch.equal(i.long(), wrapped), i
        import json
        print(json.dumps({"modules": sorted(set(patches)), "patches": len(patches), "checks": sorted(set(checks))}))
    """)
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["modules"] == ["k", "swap"] and seen["patches"] == 2 * 2, seen  # per launch: kernel's, helper's
    assert set(seen["checks"]) <= {False}, seen  # no overflow check computed
