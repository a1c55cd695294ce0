"""A stored run, loaded for diagnosis: the result, the task, the tensors, and what they imply.

Diagnosis never reads one standard's fields: every output gets standard-neutral facts, the
three_dim comparison of the stored tensors (normal range, small values and cancellation against
the CPU control, NaN positions, signed bias), whichever standard judged the run. `failed` is the
run's own verdict for that output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from sandbox import protocol
from sandbox.harness.hooks import POISON_BITS, integer_sentinel
from tools import thresholds as T
from tools.compare import CompareInputError, compare_tensors
from tools.compare.options import CompareOptions
from tools.compare.outputs import normalize_outputs
from tools.models.accuracy import RunAccuracyResult, StoredTask
from tools.models.compare import CompareResult
from tools.models.diagnosis import ExperimentOutcome, Location
from tools.services import services
from tools.store.runs import RunStore


@dataclass
class OutputData:
    """One output of one seed, as float64 on the CPU, with the masks every detector needs."""

    name: str
    seed: int
    actual: torch.Tensor | None  # as the candidate returned it
    golden: torch.Tensor
    cpu: torch.Tensor | None
    own: CompareResult  # as the run's standard judged it
    neutral: CompareResult  # three_dim on the same tensors: what every detector reads

    @property
    def measured(self) -> torch.Tensor:
        """`actual`, where the candidate returned this output: the detectors and experiments only
        see such outputs (diagnosis.detect and the experiments' target keep only those)."""
        if self.actual is None:
            raise ValueError(f"output {self.name!r} of seed {self.seed} has no stored tensor to diagnose")
        return self.actual

    @property
    def a(self) -> torch.Tensor:
        return self.measured.to(torch.float64)

    @property
    def g(self) -> torch.Tensor:
        return self.golden.to(torch.float64)

    @property
    def failed(self) -> bool:
        return not self.own.passed

    @property
    def normal_failed(self) -> bool:
        """The normal range fails three_dim, or the run's own standard failed a tolerance rule
        that three_dim does not have (catlass, assert_close) on an output three_dim passes."""
        if self.neutral.dimensions.normal_range is False:
            return True
        own = self.own.dimensions
        return self.failed and self.neutral.passed and (own.tolerance is False or own.error_metrics is False)

    @property
    def small_failed(self) -> bool:
        return self.neutral.dimensions.small_value is False

    @property
    def cancel_failed(self) -> bool:
        return self.neutral.dimensions.cancellation is False

    @property
    def toward_zero(self) -> float | None:
        return self.neutral.bias.toward_zero_fraction if self.neutral.bias else None

    @property
    def cpu_toward_zero(self) -> float | None:
        return self.neutral.bias.cpu_toward_zero_fraction if self.neutral.bias else None

    def unwritten(self) -> torch.Tensor:
        """Elements still holding the poison: never written by the candidate. Floats: the poison's
        NaN payload; integers: the sentinel, where the golden is another value."""
        if self.actual is None:
            return torch.zeros(0, dtype=torch.bool)
        if self.actual.dtype in POISON_BITS:
            view_dtype, bits = POISON_BITS[self.actual.dtype]
            return self.actual.contiguous().view(view_dtype) == torch.tensor(bits, dtype=view_dtype)
        sentinel = integer_sentinel(self.actual.dtype)
        if sentinel is None or self.golden.shape != self.actual.shape:
            return torch.zeros(0, dtype=torch.bool)
        golden = self.golden.to(torch.float64)
        if sentinel == torch.iinfo(self.actual.dtype).min:
            # The sentinel is the dtype's minimum: a kernel that saturates (a clamp to [-128, 127]) computes it
            # too. Where the output also holds the maximum the golden does not, the minimum proves nothing.
            top = torch.iinfo(self.actual.dtype).max
            if bool(((self.actual == top) & (golden != top)).any()):
                return torch.zeros(0, dtype=torch.bool)
        hits = (self.actual == sentinel) & (golden != sentinel)
        if not _sentinel_stands_out(self.actual, golden, sentinel, int(hits.sum())):
            return torch.zeros(0, dtype=torch.bool)
        return hits

    def as_2d(self, t: torch.Tensor) -> torch.Tensor:
        if t.dim() == 0:
            return t.reshape(1, 1)
        if t.dim() == 1:
            return t.reshape(1, -1)
        return t.reshape(-1, t.shape[-1])


def _sentinel_stands_out(actual: torch.Tensor, golden: torch.Tensor, sentinel: int, hits: int) -> bool:
    """The sentinel is held far more often than the values beside it: unwritten memory, not computed values."""
    info = torch.iinfo(actual.dtype)
    beside = [v for v in (sentinel - 2, sentinel - 1, sentinel + 1, sentinel + 2) if info.min <= v <= info.max]
    chance = max(int(((actual == v) & (golden != v)).sum()) for v in beside)
    return hits > T.SENTINEL_OVER_NEIGHBOURS * chance


@dataclass
class RunContext:
    run_id: str
    result: RunAccuracyResult
    task: StoredTask
    tensors: dict
    outputs: list[OutputData] = field(default_factory=list)
    compute_num: int | None = None
    compute_num_source: str = "unknown"
    matmul: bool = False
    inputs: list = field(default_factory=list)  # the first stored seed's inputs
    fingerprint: list = field(default_factory=list)  # PrecisionModels of the first seed (matmul-like ops)
    fingerprint_seed: int | None = None
    #: what the experiments run so far found, by experiment id (a later experiment may start from it)
    outcomes: dict[str, ExperimentOutcome] = field(default_factory=dict)
    #: the access trace's sampled output elements (tools.diagnosis.traced.TracedSample), once it ran
    traced: list = field(default_factory=list)
    #: ... and right elements of the outputs that passed, traced beside them (the controls of the stores)
    traced_controls: list = field(default_factory=list)

    @property
    def source(self) -> str:
        return self.task.candidate

    @property
    def tensors_kept(self) -> bool:
        return bool(self.tensors)

    @property
    def primary_seed(self) -> int | None:
        """The first failing seed (the first seed when none failed): what detectors and trials use."""
        seeds = self.result.seeds
        return next((s.seed for s in seeds if not s.passed), seeds[0].seed if seeds else None)

    def line_location(
        self, line: int, what: str = "", tensor: str | None = None, access: str | None = None
    ) -> Location:
        """A location at one line of the candidate, with that line's text."""
        name = self.task.candidate_name
        return Location.at_line(name, line, self.source, what, tensor=tensor, access=access)

    def inputs_of(self, seed: int | None) -> list | None:
        index = next((i for i, s in enumerate(self.result.seeds) if s.seed == seed), None)
        stored = self.tensors.get(protocol.key(index, "inputs")) if index is not None else None
        return list(stored) if stored is not None else None


def _leaf_map(tree) -> dict:
    return dict(normalize_outputs(tree)) if tree is not None else {}


def load(run_id: str, store: RunStore | None = None) -> RunContext:
    store = store or services().runs
    result = RunAccuracyResult.model_validate(store.result(run_id))
    ctx = RunContext(run_id=run_id, result=result, task=store.stored_task(run_id), tensors=store.tensors(run_id))
    for i, seed_result in enumerate(result.seeds):
        actual = _leaf_map(ctx.tensors.get(protocol.key(i, "actual")))
        golden = _leaf_map(ctx.tensors.get(protocol.key(i, "golden")))
        cpu = _leaf_map(ctx.tensors.get(protocol.key(i, "cpu")))
        for output in seed_result.outputs:
            g = golden.get(output.name)
            if not isinstance(g, torch.Tensor):
                continue
            a = actual.get(output.name)
            a = a if isinstance(a, torch.Tensor) else None
            c = cpu.get(output.name) if isinstance(cpu.get(output.name), torch.Tensor) else None
            ctx.outputs.append(OutputData(output.name, seed_result.seed, a, g, c, output, _neutral(output, a, g, c)))
    ctx.inputs = list(ctx.tensors.get(protocol.key(0, "inputs")) or [])
    _infer_compute(ctx)
    return ctx


def _neutral(own: CompareResult, actual, golden, cpu) -> CompareResult:
    """three_dim on the stored tensors; the run's own result where that is three_dim already or
    the output is structurally wrong (nothing to measure)."""
    if own.standard == "three_dim" or own.error_kind is not None or actual is None:
        return own
    try:
        return compare_tensors(actual, golden, cpu, dtype=own.dtype, name=own.name, options=CompareOptions(top_k=5))
    except CompareInputError:
        return own


def _infer_compute(ctx: RunContext) -> None:
    """Reduction length: as given, or from a matmul (the golden is inputs[0] @ inputs[1]: K), or
    from a reduction (input elements / output elements)."""
    given = ctx.task.compute_num
    floats = [t for t in ctx.inputs if isinstance(t, torch.Tensor) and t.is_floating_point()]
    golden = ctx.outputs[0].golden if ctx.outputs else None
    if len(floats) >= 2 and golden is not None:
        a, b = floats[0], floats[1]
        if (
            a.dim() >= 2
            and b.dim() >= 2
            and a.shape[-1] == b.shape[-2]
            and golden.shape[-2:] == (a.shape[-2], b.shape[-1])
        ):
            rows = min(8, a.shape[-2])
            probe = a[..., :rows, :].to(torch.float64) @ b.to(torch.float64)
            expected = golden[..., :rows, :].to(torch.float64)
            if torch.allclose(probe, expected, rtol=1e-9, atol=1e-9 * float(expected.abs().max().clamp(min=1))):
                ctx.matmul = True
                if given is None:
                    ctx.compute_num, ctx.compute_num_source = int(a.shape[-1]), "inferred: K of the matmul"
    if given is not None:
        ctx.compute_num, ctx.compute_num_source = int(given), "given"
    elif ctx.compute_num is None and floats and golden is not None and golden.numel():
        ratio = floats[0].numel() / golden.numel()
        if ratio >= 2 and math.isclose(ratio, round(ratio)):
            ctx.compute_num, ctx.compute_num_source = int(round(ratio)), "inferred: input elements / output elements"
