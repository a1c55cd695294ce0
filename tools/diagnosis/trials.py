"""Trials: a stored run's reference and candidate re-run, in the sandbox, on inputs changed under control.

A trial takes the inputs of one stored seed, applies a transform in this trusted process (scale by
a power of two, add an offset, ...), computes the golden and the CPU control of the transformed
inputs in a reference job, runs the candidate on them in a candidate job (same sandbox rules as
run_accuracy; the candidate never holds the golden), and judges the outputs with the run's own
standard. Experiments (tools.diagnosis.experiments) compare trials to confirm or refute a
hypothesis.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import torch

from sandbox import protocol, reports, tensorio
from sandbox.harness.common import tree_map
from sandbox.pool import JobRequest, JobResult
from tools import faults, goldens
from tools.compare import CompareInputError, compare_outputs
from tools.compare.options import CompareOptions
from tools.compare.outputs import normalize_outputs
from tools.diagnosis.context import RunContext
from tools.models.compare import CompareResult
from tools.services import resolve_backend, services

InputTransform = Callable[[torch.Tensor], torch.Tensor]
#: The reference job's key for the run's own inputs, unchanged (patched candidates, changed candidate inputs).
UNCHANGED_INPUTS = "as run"
#: The whole list of forward inputs in, the list the candidate is given out (one input changed, say).
InputsChange = Callable[[list], list]
#: The backend of the access trace: the Triton interpreter sees every load's addresses.
INTERPRETER = "cpu"
#: A job that ran and returned status ok, or None and why not.
JobOutcome = tuple[JobResult, None] | tuple[None, str]


class TrialBudgetExceeded(Exception):
    """The experiments' time budget is spent: stop running trials."""


@dataclass
class Trial:
    """One re-run: what the candidate returned on the transformed inputs, judged."""

    label: str
    ok: bool  # both jobs ran and the outputs were compared
    error: str | None = None
    outputs: dict[str, CompareResult] = field(default_factory=dict)  # judged by the run's own standard
    neutral: dict[str, CompareResult] = field(default_factory=dict)  # judged by three_dim: the metrics experiments read
    actual: dict[str, torch.Tensor] = field(default_factory=dict)
    golden: dict[str, torch.Tensor] = field(default_factory=dict)
    cpu: dict[str, torch.Tensor] = field(default_factory=dict)
    out_of_bounds_writes: int = 0
    out_of_bounds_reads: int = 0  # elements its loads read in the guard margins (cpu interpreter)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Passes three_dim (whatever standard judged the run: experiments are standard-neutral); a trial that
        compared no output passes nothing."""
        return (
            self.ok
            and bool(self.neutral)
            and all(o.passed for o in self.neutral.values())
            and not self.out_of_bounds_writes
        )

    @property
    def clean(self) -> bool:
        """Passes three_dim and the run's own standard (what the run's verdict asks: a candidate that fails only a
        stricter standard passes three_dim as it is, and every edit would), and no load read outside the
        tensors: what a repair must do (a patch that passes only by reading past an end is no repair)."""
        own = self.outputs.values()
        return self.passed and all(o.passed for o in own) and not self.out_of_bounds_reads

    def nan_where_golden_finite(self, name: str) -> torch.Tensor | None:
        a, g = self.actual.get(name), self.golden.get(name)
        if a is None or g is None or a.shape != g.shape or not a.is_floating_point():
            return None
        return torch.isnan(a) & ~torch.isnan(g)


def _floats(transform: InputTransform | None):
    def apply(t: torch.Tensor) -> torch.Tensor:
        if transform is None or not t.is_floating_point():
            return t
        return tensorio.with_layout_of(transform(t.to(torch.float64)).to(t.dtype), t)  # a view stays one

    return apply


class TrialRunner:
    """Runs trials for one stored run within a wall-clock budget; cancellable."""

    def __init__(
        self,
        ctx: RunContext,
        budget_s: float,
        cancel: threading.Event | None = None,
        report: Callable[[str], None] | None = None,
        seed: int | None = None,
    ):
        """`seed`: the run's seed its trials re-run (default: the run's first failing one)."""
        self.ctx = ctx
        self.deadline = time.monotonic() + budget_s
        self.cancel = cancel
        self.report = report or (lambda _message: None)
        self.trials: list[Trial] = []
        self._references: dict[str, JobOutcome] = {}  # reference jobs by the inputs they ran on
        task = ctx.task
        self.backend = resolve_backend(task.backend_resolved)
        self.options = goldens.input_options(task.dtype, task.value_range, task.input_profile)
        self.compare = CompareOptions(
            standard=task.standard,
            thresholds=dict(task.thresholds or {}),
            compute_num=task.compute_num,
            normal_range=task.normal_range,
        )
        seed = ctx.primary_seed if seed is None else seed
        if seed is None:  # experiments run on failing runs only: they have judged seeds
            raise ValueError(f"run {ctx.run_id} has no seeds to re-run")
        self.seed: int = seed
        self.timeout_s = float(task.timeout_s)
        self.memory_mb = int(task.memory_mb)

    @property
    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()

    def run(
        self,
        label: str,
        transform: InputTransform | None = None,
        guard_fill: str | None = "nan",
        candidate: str | None = None,
        inputs_key: str | None = None,
        candidate_inputs: InputsChange | None = None,
        inputs_change: InputsChange | None = None,
    ) -> Trial:
        """Reference and candidate (or a patched `candidate` source) on the primary seed's inputs,
        transformed; `inputs_change` changes the inputs both are given (after `transform`, keyed by the
        label); `candidate_inputs` what the candidate alone is given (judged against the golden of the
        unchanged inputs). Raises TrialBudgetExceeded when no time is left or the caller cancelled."""
        if self.remaining_s <= 0 or (self.cancel is not None and self.cancel.is_set()):
            raise TrialBudgetExceeded(label)
        self.report(label)
        started = time.perf_counter()
        key = inputs_key or (label if candidate_inputs is None else UNCHANGED_INPUTS)
        trial = self._run(
            label, transform, guard_fill, candidate or self.ctx.source, key, candidate_inputs, inputs_change
        )
        trial.seconds = time.perf_counter() - started
        self.trials.append(trial)
        return trial

    def run_all(self, runs: list[dict], stop=None) -> list[Trial]:
        """Several candidate runs on the run's own inputs (each: run()'s keyword arguments, with `label`),
        as many at once as the sandbox has slots, in order; after a trial for which `stop(trial)` holds, the
        ones not yet started are dropped. Raises TrialBudgetExceeded as run() does (before any starts)."""
        if not runs:
            return []
        first = self.run(**runs[0])  # also makes the reference job the others share
        done = [first]
        if stop is not None and stop(first):
            return done
        width = max(1, min(services().pool(self.backend).slots, len(runs) - 1))
        found = threading.Event()

        def one(kwargs: dict) -> Trial | None:
            if found.is_set() or self.remaining_s <= 0:
                return None
            trial = self.run(**kwargs)
            if stop is not None and stop(trial):
                found.set()
            return trial

        with ThreadPoolExecutor(width) as executor:
            done += [t for t in executor.map(one, runs[1:]) if t is not None]
        return done

    def traced(self, samples: list[list[int]]) -> tuple[JobResult, JobResult] | str:
        """The reference's dependencies and the candidate's access trace for the sampled output
        elements ([output position, flat index]) on the primary seed's own inputs, both on the cpu
        interpreter whatever the run's backend (only the interpreter shows each load's addresses):
        (reference job, candidate job), or why they did not run. Raises TrialBudgetExceeded."""
        if self.remaining_s <= 0 or (self.cancel is not None and self.cancel.is_set()):
            raise TrialBudgetExceeded("access trace")
        self.report("access trace")
        stored = self.ctx.inputs_of(self.seed)
        if stored is None:
            return "the run kept no inputs for this seed"
        task = self.ctx.task
        ref, error = self._job(
            "reference",
            {"reference.py": task.reference},
            {"reference.py": task.reference_name},
            self.options | {"dependencies": samples, "parts": "golden"},
            {protocol.key(0, "inputs"): stored},
            INTERPRETER,
        )
        if ref is None:
            return f"reference: {error}"
        given = protocol.given_inputs([(protocol.seed_part(ref.values, 0, "init"), stored)])
        cand = self._traced_candidate(samples, given)
        return (ref, cand) if not isinstance(cand, str) else cand

    def stores_traced(self, samples: list[list[int]]) -> JobResult | str:
        """The candidate's access trace alone (its stores: which program wrote each element, from which line), on
        the primary seed's own inputs on the cpu interpreter; or why it did not run. Raises TrialBudgetExceeded."""
        if self.remaining_s <= 0 or (self.cancel is not None and self.cancel.is_set()):
            raise TrialBudgetExceeded("store trace")
        self.report("store trace")
        ref, error = self._reference(None, UNCHANGED_INPUTS)  # the job the search's trials share
        if ref is None:
            return f"reference: {error}"
        parts = (protocol.seed_part(ref.values, 0, "init"), protocol.seed_part(ref.values, 0, "inputs"))
        return self._traced_candidate(samples, protocol.given_inputs([parts]))

    def _traced_candidate(self, samples: list[list[int]], given: dict) -> JobResult | str:
        cand, error = self._job(
            "candidate",
            {"candidate.py": self.ctx.source},
            {"candidate.py": self.ctx.task.candidate_name},
            self.options | {"determinism": False, "poison": True, "guard_fill": None, "trace": samples},
            given,
            INTERPRETER,
        )
        return cand if cand is not None else f"candidate: {error}"

    def _job(
        self, kind: str, files: dict, names: dict, options: dict, inputs: dict, backend: str | None = None
    ) -> JobOutcome:
        timeout = max(1.0, min(self.timeout_s, self.remaining_s + 5.0))
        job = (
            services()
            .pool(resolve_backend(backend) if backend else self.backend)
            .run(
                JobRequest(kind, files, names, [self.seed], options, inputs=inputs, memory_mb=self.memory_mb),
                timeout,
                self.cancel,
            )
        )
        fault = faults.process_fault(job, timeout, kind)
        if fault is not None:
            return None, fault[1].message
        try:  # the report comes from the job's process: its code may have changed it
            report = reports.parse(reports.RECORDS.get(kind, reports.JobEnvelope), job.meta, f"the {kind}'s report")
            failed = faults.user_error(report.error)[1] if report.status != "ok" else None
        except faults.MALFORMED_REPORT as exc:
            failed = faults.malformed_report(kind, exc)
        if failed is not None:
            return None, f"{failed.type}: {failed.message}"[:300]
        return job, None

    def _reference(self, transform: InputTransform | None, key: str, change: InputsChange | None = None) -> JobOutcome:
        """The reference job on the transformed, then changed, inputs (one per distinct inputs: `key`); the
        candidate is given the inputs it returns."""
        if key not in self._references:
            stored = self.ctx.inputs_of(self.seed)
            if stored is None:
                return None, "the run kept no inputs for this seed"
            task = self.ctx.task
            inputs = tree_map(_floats(transform), stored)
            self._references[key] = self._job(
                "reference",
                {"reference.py": task.reference},
                {"reference.py": task.reference_name},
                self.options,
                {protocol.key(0, "inputs"): change(list(inputs)) if change is not None else inputs},
            )
        return self._references[key]

    def _run(
        self,
        label: str,
        transform: InputTransform | None,
        guard_fill: str | None,
        candidate: str,
        key: str,
        candidate_inputs: InputsChange | None = None,
        inputs_change: InputsChange | None = None,
    ) -> Trial:
        task = self.ctx.task
        ref, error = self._reference(transform, key, inputs_change)
        if ref is None:
            return Trial(label, ok=False, error=f"reference: {error}")
        inputs = protocol.seed_part(ref.values, 0, "inputs")
        if candidate_inputs is not None:
            inputs = candidate_inputs(list(inputs))
        given = protocol.given_inputs([(protocol.seed_part(ref.values, 0, "init"), inputs)])
        cand, error = self._job(
            "candidate",
            {"candidate.py": candidate},
            {"candidate.py": task.candidate_name},
            self.options | {"determinism": False, "poison": True, "guard_fill": guard_fill},
            given,
        )
        if cand is None:
            return Trial(label, ok=False, error=f"candidate: {error}")
        outputs = (
            protocol.seed_part(cand.values, 0, "actual"),
            protocol.seed_part(ref.values, 0, "golden"),
            protocol.seed_part(ref.values, 0, "cpu"),
        )
        try:
            report = compare_outputs(*outputs, options=self.compare)
            neutral = (
                report if self.compare.standard == "three_dim" else compare_outputs(*outputs, options=CompareOptions())
            )
        except CompareInputError as exc:
            return Trial(label, ok=False, error=str(exc))
        actual = dict(normalize_outputs(protocol.seed_part(cand.values, 0, "actual")))
        golden = dict(normalize_outputs(protocol.seed_part(ref.values, 0, "golden")))
        cpu = (
            dict(normalize_outputs(protocol.seed_part(ref.values, 0, "cpu")))
            if protocol.seed_part(ref.values, 0, "cpu") is not None
            else {}
        )
        checked = reports.parse(reports.CandidateReport, cand.meta)  # parsed in _job: no error here
        return Trial(
            label,
            ok=True,
            outputs={o.name: o for o in report.outputs},
            neutral={o.name: o for o in neutral.outputs},
            actual={k: v for k, v in actual.items() if isinstance(v, torch.Tensor)},
            golden={k: v for k, v in golden.items() if isinstance(v, torch.Tensor)},
            cpu={k: v for k, v in cpu.items() if isinstance(v, torch.Tensor)},
            out_of_bounds_writes=checked.overruns(),
            out_of_bounds_reads=checked.margin_reads(),
        )


class ResizedTrialRunner(TrialRunner):
    """Trials of the same task at other sizes (tools.shapes rewrote its reference): the reference job makes
    the seed's inputs itself (the stored ones have the task's sizes). Shares the base runner's deadline."""

    def __init__(self, base: TrialRunner, reference_text: str, timeout_s: float):
        super().__init__(base.ctx, 0.0, base.cancel, base.report)
        self.deadline = base.deadline
        self.reference_text = reference_text
        self.timeout_s = min(self.timeout_s, timeout_s)  # per job

    def _reference(self, transform: InputTransform | None, key: str, change: InputsChange | None = None) -> JobOutcome:
        if transform is not None or change is not None:
            return None, "resized trials run on the seed's own inputs"
        if key not in self._references:
            self._references[key] = self._job(
                "reference",
                {"reference.py": self.reference_text},
                {"reference.py": self.ctx.task.reference_name},
                self.options | {"return_inputs": True},
                {},
            )
        return self._references[key]
