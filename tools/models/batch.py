"""Batch evaluation: many run_accuracy requests at once (tools.batch.run_batch, `kernel-eval batch`,
the MCP tool run_accuracy_batch)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from tools.catalogue import MAX_BATCH_CANDIDATES
from tools.models.accuracy import RunAccuracyRequest, RunAccuracyResult, Verdict
from tools.models.bench import BenchmarkOptions, BenchmarkResult, BenchVerdict
from tools.models.common import Model

Engine = Literal["local", "ray"]


class BatchError(Model):
    """Why a request got no verdict: the same error its run_accuracy call alone would raise, or the batch's own."""

    kind: Literal["input", "server_fault", "cancelled", "lost"] = Field(
        description="input: the request cannot run as given (run_accuracy's own error); server_fault: the "
        "sandbox failed; cancelled: the batch was cancelled first; lost: its worker died on both attempts."
    )
    message: str


class BatchItem(Model):
    """One request of a batch: its full run_accuracy result, or the error that stopped it."""

    index: int = Field(description="Position of the request in the batch (0-based; the manifest's line order).")
    result: RunAccuracyResult | None = None
    error: BatchError | None = None
    attempts: int = Field(default=1, description="2 when the worker that had it died and it ran again elsewhere.")
    worker: str | None = Field(default=None, description="The worker that judged it: local, gpu<N>, ray:<actor>.")
    rerun_reason: str | None = Field(default=None, description="Why it ran a second time (which worker was lost).")
    benchmark: BenchmarkResult | None = Field(
        default=None, description="With timing asked for: benchmark_kernel's result for a candidate that passed."
    )

    @property
    def verdict(self) -> str:
        return self.result.verdict if self.result is not None else f"error:{self.error.kind if self.error else '?'}"


class BatchReport(Model):
    """What tools.batch.run_batch returns: every item in input order, with counts and throughput."""

    engine: Engine
    items: list[BatchItem]
    verdicts: dict[str, int] = Field(description="Count per verdict; requests without one as error:<kind>.")
    reruns: list[str] = Field(default_factory=list, description="Each lost worker and the requests rerun.")
    workers: list[str] = Field(default_factory=list)
    wall_s: float
    candidates_per_minute: float
    summary: str


class RunAccuracyBatchRequest(RunAccuracyRequest):
    """Judge many candidates of one task at once: every field of run_accuracy, with `candidates` instead
    of `candidate`. Each candidate gets exactly the result run_accuracy would give it alone."""

    candidate: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    candidates: list[str] = Field(
        min_length=1,
        max_length=MAX_BATCH_CANDIDATES,
        description="The candidates: Python sources defining `class ModelNew`, or paths of such .py files.",
    )
    benchmark: BenchmarkOptions | None = Field(
        default=None,
        description="Also time every candidate that passes against the reference (benchmark_kernel with these "
        "options; {} for its defaults), one timed job per device at a time. On cpu: a roofline estimate only.",
    )

    @model_validator(mode="after")
    def _sources_given(self):
        if self.candidate is not None:
            raise ValueError("candidate is run_accuracy's field: give the batch's sources as candidates=[...]")
        if not self.reference.strip():
            raise ValueError("reference is empty: pass Python source text or a path to a .py file")
        for i, text in enumerate(self.candidates):
            if not text.strip():
                raise ValueError(f"candidates[{i}] is empty: pass Python source text or a path to a .py file")
        return self

    def requests(self) -> list[RunAccuracyRequest]:
        """One run_accuracy request per candidate, with exactly the fields this call set."""
        shared = self.model_dump(exclude={"candidates", "candidate", "benchmark"}, exclude_unset=True)
        return [RunAccuracyRequest.model_validate(shared | {"candidate": c}) for c in self.candidates]


class BatchCandidate(Model):
    """One candidate's outcome, compact: the full result is kernel-eval://runs/{run_id}/result."""

    index: int
    candidate: str = Field(description="The candidate's path, or candidate[<index>] for source text.")
    verdict: Verdict | None = None
    summary: str
    run_id: str | None = None
    error: BatchError | None = None
    rerun_reason: str | None = None
    benchmark_verdict: BenchVerdict | None = Field(default=None, description="With benchmark: the timing's verdict.")
    speedup: float | None = Field(default=None, description="With benchmark: reference / candidate median time.")
    benchmark_summary: str | None = None


class RunAccuracyBatchResult(Model):
    summary: str = Field(description="One line: how many candidates passed, failed, ...")
    verdicts: dict[str, int]
    candidates: list[BatchCandidate]
    best: int | None = Field(default=None, description="Index of the first passing candidate, if any.")
    engine: Engine
    wall_s: float
    candidates_per_minute: float
    reruns: list[str] = Field(default_factory=list)
    next_step: str = Field(
        default="read a candidate's full result at kernel-eval://runs/{run_id}/result; on a failure call "
        "explain_failure(run_id), then suggest_fix(run_id)"
    )
