"""The registries of diagnosis: every detector and every experiment, each registered in one place.

A detector reads the stored run (standard-neutral facts, the tensors, the candidate's source)
and proposes diagnoses: hypotheses with their evidence. An experiment re-runs the candidate in
the sandbox under a controlled change of its inputs and confirms or refutes hypotheses, or
finds a cause no detector proposed. A new detector or experiment is one decorated function in the
module of its family under tools/diagnosis/detectors/ (imported, in registration order, by its
__init__.py) or in tools/diagnosis/experiments.py, plus its tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Scope = Literal["run", "output"]


@dataclass(frozen=True)
class Detector:
    id: str
    patterns: tuple[str, ...]  # the pattern ids it can propose
    scope: Scope  # "run": fn(ctx, facts); "output": fn(ctx, output, facts), per output of the primary seed
    fn: Callable
    #: When this detector proposes a diagnosis for an output, detectors listed later that would
    #: only re-explain the same symptom are not asked for that output (e.g. never-written tiles
    #: make the error large: no precision detector runs on them).
    suppresses: tuple[str, ...] = ()
    only_failed: bool = False  # run only on outputs that failed
    #: Its findings are proven by the run itself (poison that survived, a written guard margin, an
    #: exact transform of the golden, the integer outputs' bits): marked "proven", never re-tested.
    proof: bool = False


@dataclass(frozen=True)
class Experiment:
    id: str
    question: str  # what it asks, in one line
    tests: tuple[str, ...]  # the pattern ids it can confirm, refute or find
    fn: Callable  # fn(ctx, runner, diagnoses) -> ExperimentOutcome | None (None: not applicable)


DETECTORS: dict[str, Detector] = {}
EXPERIMENTS: dict[str, Experiment] = {}


def detector(
    id: str,
    patterns: tuple[str, ...],
    scope: Scope = "output",
    suppresses: tuple[str, ...] = (),
    only_failed: bool = False,
    proof: bool = False,
):
    def register(fn):
        if id in DETECTORS:
            raise ValueError(f"detector {id!r} registered twice")
        DETECTORS[id] = Detector(id, patterns, scope, fn, suppresses, only_failed, proof)
        return fn

    return register


def experiment(id: str, question: str, tests: tuple[str, ...], before: str | None = None):
    """Registers an experiment to run after those registered so far, or just `before` a registered one."""

    def register(fn):
        if id in EXPERIMENTS:
            raise ValueError(f"experiment {id!r} registered twice")
        if before is not None and before not in EXPERIMENTS:
            raise ValueError(f"experiment {id!r} is to run before {before!r}, which is not registered")
        entries = list(EXPERIMENTS.items())
        at = len(entries) if before is None else [name for name, _ in entries].index(before)
        entries.insert(at, (id, Experiment(id, question, tests, fn)))
        EXPERIMENTS.clear()
        EXPERIMENTS.update(entries)
        return fn

    return register


def known_patterns() -> set[str]:
    """Every pattern id a detector or an experiment can report."""
    found = {p for d in DETECTORS.values() for p in d.patterns}
    return found | {p for e in EXPERIMENTS.values() for p in e.tests}
