"""The fix registry: every fix id with its title, what to do per DSL (Triton, triton-ascend,
AscendC) and the patchers that apply it to a candidate's source (tried in order; none: the fix
is guidance only), one `Fix(...)` entry each. A new fix is one entry here, its id in FixId
(tools/models/diagnosis.py), its patcher and tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tools.repair import allocation, blockwise, formulas, layout, padding, patches, reduction
from tools.repair.edits import reproduce
from tools.repair.search import WIDENING_OPERATORS

Patcher = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Fix:
    id: str
    title: str
    triton: str
    triton_ascend: str
    ascendc: str
    patchers: tuple[Patcher, ...] = ()

    def guidance(self) -> dict[str, str]:
        return {"triton": self.triton, "triton_ascend": self.triton_ascend, "ascendc": self.ascendc}

    def patch(self, source: str, evidence: dict | None = None) -> str | None:
        """The candidate with this fix applied, or None when no patcher found its construct. An experiment
        that found the change itself (the padding that made the candidate pass) says so in `evidence`."""
        edit, found, also = None, (0, "", ""), ()
        if evidence and isinstance(evidence.get("edit_after"), str):  # the edit repair_search found
            found = (int(evidence["line"]), str(evidence["edit_before"]), evidence["edit_after"])
            also = tuple(int(line) for line in evidence.get("also_lines", ()))
            edit = reproduce(source, *found, also, str(evidence.get("edit_line_after", "")))
            # a widened dtype: the fix's own patch (accumulator and loads) is the whole repair, the edit a part
            if edit is not None and evidence.get("edit_operator") not in WIDENING_OPERATORS:
                return edit
        directed = DIRECTED[self.id](source, evidence) if self.id in DIRECTED and evidence else None
        if directed is not None:
            return directed
        for patcher in self.patchers:
            patched = patcher(source)
            if patched is not None:
                # the widening the search saw pass, kept where the fix's own patch left that line as it was (a
                # cast to fp16 of an intermediate is no accumulator's)
                return (reproduce(patched, *found, also) if edit is not None else None) or patched
        return edit


#: Patches made from an experiment's finding (the diagnosis' evidence), tried before the source patchers.
DIRECTED: dict[str, Callable[[str, dict], str | None]] = {
    "boundary_mask": padding.from_evidence,
    "fix_layout": layout.from_evidence,
    "output_dtype": allocation.from_evidence,
    "fix_formula": formulas.from_evidence,
}

#: Every fix, once: its id, title, what to do per DSL, and the patchers that apply it (tried in order).
FIXES: dict[str, Fix] = {
    fix.id: fix
    for fix in (
        Fix(
            "fp32_accumulator",
            title="Accumulate in fp32",
            triton="Initialise the accumulator with tl.zeros(..., dtype=tl.float32), add fp32 partials "
            "(tl.dot returns fp32; upcast loads before tl.sum: x.to(tl.float32)), "
            "and cast to the output dtype once, at the store.",
            triton_ascend="Same as Triton; on Ascend keep the accumulator in fp32 "
            "(the Cube unit accumulates fp16 inputs in fp32) and cast once when storing.",
            ascendc="Accumulate in an fp32 LocalTensor (Mmad with fp32 L0C / ReduceSum on fp32), then Cast to "
            "fp16/bf16 with CAST_RINT once before DataCopy out.",
            patchers=(patches.fp32_accumulator,),
        ),
        Fix(
            "kahan_summation",
            title="Kahan-compensated accumulation across K blocks",
            triton="Keep a compensation tensor next to the accumulator: partial = tl.dot(a, b); y = partial - comp; "
            "t = acc + y; comp = (t - acc) - y; acc = t. Error O(eps) instead of O(K eps).",
            triton_ascend="The same compensation in the K loop (the triton-ascend large-K fix): "
            "it removes the drift between the Cube engine's fp32 path and sequential accumulation for K >= 4096.",
            ascendc="Accumulate block partials with a compensation buffer "
            "(Sub, Add, Sub, Sub per step) in fp32 UB tensors.",
            patchers=(patches.kahan,),
        ),
        Fix(
            "ieee_dot_precision",
            title="Full fp32 products in tl.dot",
            triton='tl.dot(a, b, input_precision="ieee") on fp32 inputs '
            "(the default uses tf32 on NVIDIA GPUs: 10-bit mantissas).",
            triton_ascend='Disable hf32 for the dot (allow_tf32=False / input_precision="ieee" where supported): '
            "hf32 keeps ~11 bits.",
            ascendc="Configure the Cube unit for fp32 (not hf32) operands in the Mmad params.",
            patchers=(patches.ieee_dot,),
        ),
        Fix(
            "stable_formula",
            title="A numerically stable formula",
            triton="log(1 + x) -> u = 1 + x; where(u == 1, x, log(u) * x / (u - 1)) (log1p); "
            "exp(x) - 1 -> expm1 in the same spirit; one-pass E[x^2] - E[x]^2 -> two-pass sum((x - mean)^2) or "
            "Welford; avoid subtracting nearly equal large terms in low precision.",
            triton_ascend="The same formulas; compute them in fp32.",
            ascendc="The same formulas with fp32 intermediates (Ln/Exp/Sub on fp32 LocalTensors).",
            patchers=(formulas.stable_formula,),
        ),
        Fix(
            "nan_propagation",
            title="Propagate NaN like the reference",
            triton="tl.where(x > 0, x, 0) and tl.maximum drop NaN; test it: tl.where((x > 0) | (x != x), x, 0).",
            triton_ascend="Same as Triton.",
            ascendc="Select with a NaN check (Compare x != x) so NaN inputs give NaN outputs.",
            patchers=(patches.nan_propagation,),
        ),
        Fix(
            "max_subtraction",
            title="Subtract the row max before exp",
            triton="x = x - tl.max(x, axis=0) before tl.exp "
            "(load masked lanes with other=-float('inf')): exp(x - max) <= 1 never overflows.",
            triton_ascend="Same as Triton.",
            ascendc="ReduceMax, then Sub before Exp, in fp32.",
            patchers=(blockwise.blockwise_max_subtraction, blockwise.single_block_max_subtraction),
        ),
        Fix(
            "cast_round_mode_rint",
            title="Round to nearest even when narrowing",
            triton='x.to(tl.float16, fp_downcast_rounding="rtne") (or no argument): '
            "'rtz' truncates and biases every result toward zero.",
            triton_ascend="Same as Triton.",
            ascendc="Cast(dst, src, RoundMode::CAST_RINT, n) instead of CAST_TRUNC / CAST_FLOOR.",
            patchers=(patches.round_to_nearest, formulas.round_before_int_cast),
        ),
        Fix(
            "boundary_mask",
            title="Cover and mask the partial tiles",
            triton="Size the grid with triton.cdiv(n, BLOCK) and give every tl.load / tl.store a mask (offs < n, "
            "per dimension; loads with other=0).",
            triton_ascend="Same as Triton.",
            ascendc="Handle the tail block: DataCopy with the remainder length (DataCopyPad for non-32B-aligned "
            "tails).",
            patchers=(patches.boundary_mask,),
        ),
        Fix(
            "initialize_output",
            title="Initialise the output",
            triton="When programs accumulate into the output (atomics) or do not cover it, "
            "allocate it with torch.zeros; better, make the grid cover every element.",
            triton_ascend="Same as Triton.",
            ascendc="Duplicate zeros into the output GM / UB before accumulating (and check EnQue/DeQue ordering).",
            patchers=(patches.zeros_output,),
        ),
        Fix(
            "fix_layout",
            title="Fix the output layout",
            triton="Pass the strides in the order the kernel indexes (stride(0) for rows, stride(1) for columns) "
            "and store at [offs_m, offs_n], not transposed; check any scale factor.",
            triton_ascend="Same as Triton.",
            ascendc="Check the ND/NZ formats and the DataCopy strides of the output.",
            patchers=(patches.swap_strides,),
        ),
        Fix(
            "deterministic_reduction",
            title="A deterministic reduction",
            triton="Replace tl.atomic_add of partials by a workspace [SPLIT, M, N] and a second kernel "
            "that sums the splits in a fixed order (or a single program per output tile).",
            triton_ascend="Same as Triton.",
            ascendc="Reduce across cores in a fixed order through a workspace instead of atomic adds.",
            patchers=(reduction.deterministic_reduction,),
        ),
        Fix(
            "do_not_mutate_inputs",
            title="Write to a new output, never into an input",
            triton="out = torch.empty_like(x); pass out as the destination pointer; return out.",
            triton_ascend="Same as Triton.",
            ascendc="Allocate a separate output GM tensor.",
            patchers=(patches.fresh_output, patches.copy_written_inputs),
        ),
        Fix(
            "use_kernel",
            title="Compute with a Triton kernel",
            triton="The forward must launch a @triton.jit kernel that computes the result; "
            "calling torch ops or the reference is rejected.",
            triton_ascend="Same as Triton.",
            ascendc="Call the AscendC kernel (torch.ops.npu.*), not the torch op.",
        ),
        Fix(
            "output_dtype",
            title="Allocate the output in the reference's dtype",
            triton="Make the output with the dtype the reference returns (torch.empty(..., dtype=x.dtype) or the "
            "reference's dtype); compute in fp32 inside the kernel and cast once at the tl.store.",
            triton_ascend="Same as Triton.",
            ascendc="Allocate the output GlobalTensor in the reference's dtype; Cast (CAST_RINT) before DataCopy out.",
        ),
        Fix(
            "fix_formula",
            title="Compute the formula the reference computes",
            triton="The kernel computes another formula than the reference (the error is no rounding error): "
            "a wrong divisor or constant, a constant applied in the wrong place (sqrt(v) + eps instead of "
            "sqrt(v + eps)), a term missing or too many. Compare the kernel's formula with the reference line by line.",
            triton_ascend="Same as Triton.",
            ascendc="Same: check where Adds/Muls of constants sit against the reference (e.g. Sqrt(Add(v, eps))).",
            patchers=(formulas.eps_inside_sqrt,),
        ),
        Fix(
            "relax_threshold",
            title="Judge against the CPU's own error",
            triton="The CPU same-precision control fails the absolute threshold too: "
            "re-run with normal_range='cpu_relative' (CATLASS ErrorMetrics style) or a custom threshold; "
            "the kernel is as accurate as the CPU.",
            triton_ascend="Same as Triton.",
            ascendc="Same: compare against the CPU same-precision error (ErrorMetrics ratios).",
        ),
        Fix(
            "fix_error",
            title="Fix the error at its line",
            triton="See error.file:error.line and the hint: the run never produced numbers to judge.",
            triton_ascend="Same as Triton.",
            ascendc="Same.",
        ),
    )
}


def patch(fix: str, source: str) -> str | None:
    """The candidate with `fix` applied, or None when the fix found nothing to change."""
    entry = FIXES.get(fix)
    return entry.patch(source) if entry is not None else None
