"""The tensor a line's value reaches (tools/repair/reach.py): read from the source, nothing runs."""

from __future__ import annotations

import pytest

from tools.models.diagnosis import Location
from tools.repair.reach import feeding_lines, launch_arguments, reached, with_tensor

KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, w_ptr, out_ptr, stats_ptr, N, stride_x, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    base = x_ptr + row * stride_x
    x = tl.load(base + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    y = x * w
    total = tl.sum(y, axis=0)
    tl.store(out_ptr + row * N + cols, y, mask=mask)
    tl.store(stats_ptr + row, total)


class ModelNew(torch.nn.Module):
    def forward(self, x, w):
        out = torch.empty_like(x)
        stats = torch.empty(x.shape[0], device=x.device)
        n = x.shape[1]
        scale_rows[(x.shape[0],)](
            x, w, out, stats,
            n, x.stride(0), BLOCK=128,
        )
        return out, stats
"""


def _line(text: str) -> int:
    return next(i + 1 for i, line in enumerate(KERNEL.splitlines()) if text in line)


@pytest.mark.parametrize(
    ("text", "before", "tensor", "role", "access_line"),
    [
        # the line's own access: which argument the edited code is in
        ("x = tl.load(", "base + cols", "input 0", "address", "x = tl.load("),
        ("x = tl.load(", "mask", "input 0", "mask", "x = tl.load("),
        ("w = tl.load(", "1.0", "input 1", "padding", "w = tl.load("),
        # through the names the line assigns: an address first, then a mask, then a stored value
        ("base = x_ptr", "stride_x", "input 0", "address", "x = tl.load("),
        ("mask = cols < N", "N", "input 0", "mask", "x = tl.load("),
        ("y = x * w", "x * w", "output[0]", "value", "tl.store(out_ptr"),
        ("total = tl.sum", "y", "output[1]", "value", "tl.store(stats_ptr"),
        # a launch argument: the parameter it fills (here the row stride of x's address)
        ("n, x.stride(0)", "x.stride(0)", "input 0", "address", "x = tl.load("),
    ],
)
def test_a_line_is_traced_to_the_access_its_value_reaches(text, before, tensor, role, access_line):
    found = reached(KERNEL, _line(text), before)
    assert found is not None
    assert (found.tensor, found.role, found.line) == (tensor, role, _line(access_line)), found


def test_the_pointer_is_the_parameter_the_launch_fills_with_a_tensor_not_a_size():
    """`x_ptr + row * stride_x`: both are parameters; `stride_x` is filled with `x.stride(0)`, so the tensor is x."""
    found = reached(KERNEL, _line("base = x_ptr"), "row")
    assert found is not None and (found.pointer, found.argument) == ("x_ptr", "x")
    assert found.describe() == f"the address of the load at line {_line('x = tl.load(')} from `x_ptr` (forward's `x`)"


def test_an_allocation_of_a_returned_tensor_is_that_output():
    found = reached(KERNEL, _line("stats = torch.empty"))
    assert found is not None and (found.tensor, found.role) == ("output[1]", "allocation")


def test_lines_that_reach_no_tensor_and_unparseable_sources_say_nothing():
    assert reached(KERNEL, _line("n = x.shape[1]")) is None  # host code no launch takes as written
    assert reached("def broken(:\n", 1) is None
    location = Location(description="x", line=_line("n = x.shape[1]"))
    assert with_tensor(location, KERNEL) == location


def test_a_location_gets_the_tensor_and_keeps_one_it_has():
    location = with_tensor(Location(description="x", line=_line("y = x * w")), KERNEL, "x * w")
    assert location.tensor == "output[0]"
    assert (
        location.access
        == f"line {_line('y = x * w')} sets the stored value of the store at line "
        + str(_line("tl.store(out_ptr"))
        + " to `out_ptr` (forward's `out`)"
    )
    named = Location(description="x", line=_line("y = x * w"), tensor="input 1")
    assert with_tensor(named, KERNEL) == named


def test_a_line_that_is_an_access_is_said_to_be_one_when_the_edit_is_not_known():
    found = reached(KERNEL, _line("w = tl.load("))
    assert found is not None and (found.tensor, found.role) == ("input 1", "access")
    line = _line("w = tl.load(")
    assert found.said_of(line) == f"line {line} is the load at line {line} from `w_ptr` (forward's `w`)"


TWO_LAUNCHES = """import torch
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        o1, o2 = torch.empty_like(a), torch.empty_like(b)
        copy[(1,)](a, o1, a.numel(), BLOCK=64)
        copy[(1,)](b, o2, b.numel(), BLOCK=64)
        return o1, o2
"""


def test_a_launch_line_names_its_own_launch_and_the_models_forward():
    """(review) The second launch names b and o2, not the first launch's tensors; an autograd Function's
    forward(ctx, ...) is not the model's; a kernel line of a kernel launched on different tensors names none."""
    lines = TWO_LAUNCHES.splitlines()
    second = next(i + 1 for i, text in enumerate(lines) if "copy[(1,)](b" in text)
    found = reached(TWO_LAUNCHES, second, "b")
    assert found is not None and (found.tensor, found.argument) == ("input 1", "b")
    stored = reached(TWO_LAUNCHES, second, "o2")
    assert stored is not None and stored.tensor == "output[1]"
    offsets = next(i + 1 for i, text in enumerate(lines) if "offs = tl.arange" in text)
    assert reached(TWO_LAUNCHES, offsets) is None


def test_launch_arguments_follow_positional_only_parameters_and_stop_at_star_args():
    source = KERNEL.replace(
        "def scale_rows(x_ptr, w_ptr, out_ptr, stats_ptr, N, stride_x, BLOCK: tl.constexpr):",
        "def scale_rows(x_ptr, /, w_ptr, out_ptr, stats_ptr, N, stride_x, BLOCK: tl.constexpr):",
    )
    found = reached(source, _line("tl.store(out_ptr"))
    assert found is not None and found.tensor == "output[0]"
    starred = KERNEL.replace("x, w, out, stats,", "*(x, w), out, stats,")
    assert reached(starred, _line("x = tl.load(")) is None  # x_ptr is filled by *args: unknown


def test_launch_arguments_are_each_parameters_code_and_line_by_position_or_keyword():
    at = _line("n, x.stride(0), BLOCK=128,")
    found = launch_arguments(KERNEL)
    assert found["stride_x"] == [(at, "x.stride(0)")] and found["BLOCK"] == [(at, "128")]
    assert found["x_ptr"] == [(_line("x, w, out, stats,"), "x")]
    starred = launch_arguments(KERNEL.replace("x, w, out, stats,", "*(x, w), out, stats,"))
    assert "x_ptr" not in starred and "out_ptr" not in starred and starred["BLOCK"] == [(at, "128")]
    assert launch_arguments("def (:") == {}


def test_a_launch_in_a_helper_names_the_helpers_variables_not_forwards():
    helper = KERNEL.replace(
        "    def forward(self, x, w):",
        "    def forward(self, x, w):\n        return launch(w, x)\n\n    def old(self, x, w):",
    )
    helper = helper.replace(
        "class ModelNew(torch.nn.Module):",
        "def launch(x, w):\n    return ModelNew().old(x, w)\n\n\nclass ModelNew(torch.nn.Module):",
    )
    found = reached(helper, next(i + 1 for i, t in enumerate(helper.splitlines()) if "w = tl.load(" in t))
    assert found is not None and found.tensor == "`w`", found


SPLIT = """import triton
import triton.language as tl


@triton.jit
def moments(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < N, other=0.0)
    s = tl.sum(x, axis=0)
    mean = s / N
    sq = tl.sum(x * x, axis=0) / (N + 1)
    var = sq - mean * mean
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, var)
"""


def test_the_lines_feeding_a_store_are_its_assignments_to_a_fixed_point():
    assert feeding_lines(SPLIT, 13) == {7, 8, 9, 10, 13}  # the mean's store: not the second moment's lines
    assert feeding_lines(SPLIT, 14) == {7, 8, 9, 10, 11, 12, 14}
    assert feeding_lines(SPLIT, 99) == set() and feeding_lines("def (:", 3) == set()


def test_a_line_whose_value_a_store_is_made_without_does_not_feed_it():
    """The mean's store (line 13) is made without the second moment (line 11): what line 11 reads says nothing of
    the mean's elements; the load (line 8) feeds both stores; outside a kernel nothing is told."""
    from tools.repair.reach import not_fed_by

    assert not_fed_by(SPLIT, 11, 13) and not not_fed_by(SPLIT, 11, 14)
    assert not not_fed_by(SPLIT, 8, 13) and not not_fed_by(SPLIT, 8, 14)
    assert not not_fed_by(SPLIT, 2, 13) and not not_fed_by("def (:", 11, 13)


def test_the_lines_only_a_wrong_store_is_fed_by_are_the_differential_lines():
    """The variance (line 14) wrong, the mean (line 13) right: the lines that feed only the variance."""
    from types import SimpleNamespace

    from tools.diagnosis.repair import differential_lines
    from tools.diagnosis.traced import TracedSample

    def sample(number: int, wrong: bool, line: int) -> TracedSample:
        return TracedSample(number, 0, number, wrong, {}, {"store_line": line}, {})

    def lines(traced: list[TracedSample], controls: list[TracedSample] = []) -> list[int]:  # noqa: B006
        return differential_lines(SimpleNamespace(traced=traced, traced_controls=controls, source=SPLIT))  # type: ignore[arg-type]

    traced = [sample(0, True, 14), sample(1, False, 13)]
    assert lines(traced) == [11, 12, 14]
    # the variance's store writes right elements too: the mean's store, right alone, still clears its lines
    assert lines([*traced, sample(2, False, 14)]) == [11, 12, 14]
    # a right element of another output (a control) clears its store's lines the same way
    assert lines(traced[:1], [sample(1, False, 13)]) == [11, 12, 14]
    # every store wrote a wrong element, or no right element was traced: nothing to tell apart
    assert lines([*traced, sample(2, True, 13)]) == []
    assert lines(traced[:1]) == []


TWO_STRIDES = """import torch
import triton
import triton.language as tl


@triton.jit
def pair(a_ptr, b_ptr, o_ptr, sa, sb, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(a_ptr + row * sa + cols)
    y = tl.load(b_ptr + row * sb + cols)
    tl.store(o_ptr + row * BLOCK + cols, x + y)


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        o = torch.empty_like(a)
        pair[(a.shape[0],)](a, b, o, a.stride(0), a.stride(0), BLOCK=a.shape[1])
        return o
"""


def test_an_edit_of_one_of_two_arguments_written_alike_reaches_the_tensor_of_the_one_it_changes():
    """`a.stride(0), a.stride(0)`: the second is b's row stride; an edit of it reaches b, not a (the edited source
    tells which of the two it changed)."""
    line = next(n for n, code in enumerate(TWO_STRIDES.splitlines()) if "pair[(" in code)
    edited = TWO_STRIDES.replace("a.stride(0), a.stride(0)", "a.stride(0), b.stride(0)")
    at = Location(description="launch", line=line + 1)
    assert with_tensor(at, TWO_STRIDES, "a.stride(0)", edited).tensor == "input 1"
    assert with_tensor(at, TWO_STRIDES, "a.stride(0)").tensor == "input 0"  # without it: the first that holds it


def test_of_two_alike_edits_on_a_line_the_one_reproduced_is_the_one_whose_line_was_kept():
    """suggest_fix writes the search's edit in again by its line and text: `a.stride(0)` -> `b.stride(0)` is two
    edits on the launch line, and the line as the edit left it tells which."""
    from tools.repair.edits import edits, line_of, reproduce

    line = next(n for n, code in enumerate(TWO_STRIDES.splitlines(), 1) if "pair[(" in code)
    alike = [e for e in edits(TWO_STRIDES) if (e.line, e.before, e.after) == (line, "a.stride(0)", "b.stride(0)")]
    assert len(alike) == 2
    second = next(e for e in alike if "a.stride(0), b.stride(0)" in line_of(e.source, line))
    kept = line_of(second.source, line)
    assert reproduce(TWO_STRIDES, line, "a.stride(0)", "b.stride(0)", (), kept) == second.source
    assert reproduce(TWO_STRIDES, line, "a.stride(0)", "b.stride(0)") == alike[0].source
