"""The store_collisions experiment: an output with elements never written, and a store that writes some twice.

A launch whose store addresses are one-to-one writes each element of its output once. Where an output has
elements no kernel wrote, the candidate's stores are traced on the interpreter (sandbox.harness.access_trace:
which program of which launch stored each element, from which line, and what value). Two stores of one launch
(two programs, two lanes of one store, or two store lines of one program that does not read the element back)
writing different values to the same element while others stay unwritten is a fact about the store's addresses:
they collide, so values land in the wrong places and the holes are where they should have gone. (One value
written twice collides harmlessly and is not counted: a scatter with repeated indices, a row's statistic that
every program of the row stores.) The index arithmetic of that store (a stride, an offset, the program id it
uses) is wrong, not the grid's size alone: the store line is located, and the repair search starts there, at the
lines its address is made from and at the host lines that pass the strides and sizes it uses. Where nothing was
written twice, the holes are elements no program stores (a grid or a mask that stops short): that is said, and
the unwritten diagnosis stands as it was.
"""

from __future__ import annotations

import torch

from sandbox import reports
from tools import thresholds as T
from tools.diagnosis import repair
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.experiments import Result
from tools.diagnosis.registry import experiment
from tools.diagnosis.trials import TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome
from tools.repair import reach
from tools.repair.source import SourceFacts

ID = "store_collisions"
QUESTION = (
    "where output elements were never written, does a store write another element twice in one launch (its "
    "addresses collide), or does no program store the missing ones (a grid or a mask that stops short)? (the "
    "candidate's stores traced on the interpreter)"
)


def _unwritten_target(ctx: RunContext, diagnoses: list[Diagnosis]) -> tuple[OutputData, int] | None:
    """The failing output with elements never written and no located diagnosis yet, and its first unwritten
    element (flat)."""
    target = repair.failing_output(ctx)
    if target is None or not ctx.source:
        return None
    unwritten = target.unwritten().reshape(-1)
    if not unwritten.numel() or not bool(unwritten.any()):
        return None
    if any(
        d.output in (target.name, None) and d.location and d.location.line and d.tested != "refuted" for d in diagnoses
    ):
        return None  # an earlier experiment or a proof says where already
    return target, int(torch.nonzero(unwritten)[0])


def _collisions(runner: TrialRunner, position: int, first: int) -> list[reports.StoreCollisionReport] | str:
    job = runner.stores_traced([[position, first]])
    if isinstance(job, str):
        return job
    try:
        seeds = reports.parse(reports.CandidateReport, job.meta).seeds
    except reports.ReportError:
        seeds = []
    trace = seeds[0].trace if seeds else None
    if trace is None or trace.truncated:
        return "the candidate's stores could not be traced (or the trace was cut short)"
    return [c for c in trace.collisions if c.output == position]


def _search_lines(source: str, stores: list[int]) -> list[int]:
    """The colliding stores (either may be the wrong one), then the host lines passing what their addresses use."""
    lines = list(dict.fromkeys(stores))
    for line in list(lines):
        lines += [n for n in reach.launched_parameter_lines(source, line) if n not in lines]
    return lines


@experiment(ID, QUESTION, tests=("layout_mismatch",), before="access_trace")
def store_collisions(
    ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]
) -> Result | None:
    found = _unwritten_target(ctx, diagnoses)
    if found is None:
        return None
    target, first = found
    names = [o.name for o in ctx.outputs if o.seed == target.seed]
    collided = _collisions(runner, names.index(target.name), first)
    if isinstance(collided, str):
        return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=f"not traced: {collided}"))
    if not collided:
        finding = (
            "no element was written twice with two values: the elements never written are ones no program stores (a "
            "grid or a mask that stops short), not values stored elsewhere"
        )
        return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding))
    worst = max(collided, key=lambda c: c.stores)
    never = int(target.unwritten().sum())
    index = [int(i) for i in torch.unravel_index(torch.tensor(worst.index), target.golden.shape)]
    where = f"{target.name}[{', '.join(map(str, index))}]"
    first_writer, second_writer = (tuple(p) for p in worst.programs)
    other = "another store" if worst.first_line == worst.line else f"the store at line {worst.first_line}"
    text = (
        f"line {worst.line} writes {worst.stores} element(s) of {target.name} that {other} of the same launch "
        f"wrote already with another value ({where} by programs {first_writer} and {second_writer}) while "
        f"{never} are never written: the store's addresses collide, so values land in the wrong places (its "
        "index arithmetic, a stride, an offset or the program id it uses, is wrong; the grid is not merely short)"
    )
    location = ctx.line_location(worst.line, "its addresses collide", tensor=target.name)
    diagnosis = Diagnosis(
        pattern="layout_mismatch",
        confidence=T.FOUND_BY_EXPERIMENT_CONFIDENCE,
        seed=target.seed,
        output=target.name,
        summary=text,
        evidence={
            "experiment": ID,
            "store_line": worst.line,
            "stores_again": worst.stores,
            "unwritten_elements": never,
            "example_index": index,
            # after the store's own lines (the plan adds those its address is made from): the host lines passing
            # the strides and sizes that address uses
            "search_lines": _search_lines(ctx.source or "", [worst.line, worst.first_line]),
        },
        location=location.model_copy(update={"indices": [index]}),
        suggested_fixes=["fix_layout"],
        tested="confirmed",
        experiment=text,
    )
    outcome = ExperimentOutcome(id=ID, question=QUESTION, finding=text, confirms=["layout_mismatch"])
    return Result(outcome, [diagnosis])
