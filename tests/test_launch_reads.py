"""Where what the kernels read comes from (sandbox/harness/provenance.py LaunchReads), through run_accuracy on
the interpreter: a forward whose kernels read none of the inputs (nor a cast, view or copy of one) is rejected
though its output depends on what they stored; honest casts, clones worked in place and pads are inputs' copies;
a kernel that reads a tensor torch computed from the inputs beside an input passes with a warning."""

from __future__ import annotations

import pytest

from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return x * torch.sigmoid(y) + y


def get_inputs():
    return [torch.randn(1031), torch.randn(1031)]


def get_init_inputs():
    return []
"""

KERNELS = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * tl.sigmoid(y) + y, mask=mask)


@triton.jit
def finish(x_ptr, s_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * s + y, mask=mask)


@triton.jit
def in_place(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x * tl.sigmoid(y) + y, mask=mask)


@triton.jit
def copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, y):
        n = x.numel()
        grid = (triton.cdiv(n, 256),)
{body}
"""

FORWARDS = {
    # the whole task in torch, a kernel copies it out: rejected
    "torch_then_copy": """
        out = torch.empty_like(x)
        copy[grid](x * torch.sigmoid(y) + y, out, n, BLOCK=256)
        return out""",
    # honest: the inputs cast (fp32 -> fp64 -> fp32 round trip) and padded before the kernel reads them
    "cast_and_pad": """
        xp = torch.nn.functional.pad(x.double().float(), (0, 5))
        yp = torch.cat([y, torch.zeros(5)])
        out = torch.empty_like(xp)
        fused[grid](xp, yp, out, n, BLOCK=256)
        return out[:n]""",
    # honest: the inputs copied into buffers filled with 1 (a padding the mask keeps out), more fill than data
    "fill_ones": """
        xp, yp = torch.ones(3000), torch.ones(3000)
        xp[:n], yp[:n] = x, y
        out = torch.empty_like(xp)
        fused[grid](xp, yp, out, n, BLOCK=256)
        return out[:n]""",
    # honest: a clone of the input worked on in place
    "clone_in_place": """
        out = x.clone()
        in_place[grid](out, y, n, BLOCK=256)
        return out""",
    # a hybrid: torch computes the sigmoid, the kernel the rest (reads x and y too): passes with a warning
    "torch_sigmoid": """
        out = torch.empty_like(x)
        finish[grid](x, torch.sigmoid(y), y, out, n, BLOCK=256)
        return out""",
}


def _run(name: str):
    candidate = KERNELS.format(body=FORWARDS[name].strip("\n"))
    return run_accuracy(RunAccuracyRequest(reference=REFERENCE, candidate=candidate, backend="cpu", num_seeds=1))


def test_kernels_that_read_none_of_the_inputs_are_rejected_though_the_output_depends_on_their_stores():
    result = _run("torch_then_copy")
    assert result.verdict == "rejected", result.summary
    assert result.error is not None and result.error.type == "kernels_read_no_input", result.error
    provenance = result.checks.provenance
    assert provenance is not None and provenance.dependent_fraction == 1.0, provenance
    assert provenance.kernel_reads == {"computed": 1} and provenance.computed_by == ["copy"], provenance
    assert "read none of its 2 input tensors" in result.summary, result.summary


@pytest.mark.parametrize("name", ["cast_and_pad", "fill_ones", "clone_in_place"])
def test_casts_pads_and_clones_of_the_inputs_count_as_the_inputs(name: str):
    result = _run(name)
    assert result.verdict == "pass", result.summary
    provenance = result.checks.provenance
    assert provenance is not None and provenance.kernel_reads.get("copy"), provenance
    assert not provenance.computed_by and not any("torch computed" in w for w in result.warnings), result.warnings


def test_a_kernel_reading_what_torch_computed_beside_the_inputs_passes_with_a_warning():
    result = _run("torch_sigmoid")
    assert result.verdict == "pass", result.summary
    provenance = result.checks.provenance
    assert provenance is not None and provenance.kernel_reads == {"input": 2, "computed": 1}, provenance
    assert any("finish read tensors torch computed" in w for w in result.warnings), result.warnings


def test_a_permuted_copy_of_an_input_larger_than_the_sample_is_a_copy():
    """The read tensor is sampled, the inputs are not: a reversed copy's sampled values are all the input's."""
    import torch

    from sandbox.harness.provenance import READ_SAMPLE, LaunchReads

    x = torch.randn(3 * READ_SAMPLE + 7)
    reads = LaunchReads()
    reads.begin([x])
    assert reads._copy(x.flip(0).half().float()) is False  # rounded to fp16: values no input has
    assert reads._copy(x.flip(0)) and reads._copy(torch.cat([x[5:], x[:5]]))
    assert not reads._copy(torch.sigmoid(x)) and not reads._copy(torch.zeros(10))


def test_a_host_side_tensor_descriptor_is_read_as_the_tensor_it_wraps():
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    from sandbox.harness.provenance import _tensor_of

    x = torch.randn(64, 32)
    assert _tensor_of(TensorDescriptor.from_tensor(x, [16, 16])) is x and _tensor_of(x) is x
    assert _tensor_of(3) is None and _tensor_of("x") is None
