"""The contiguous_inputs experiment: does the candidate read a strided input as if it were contiguous?

An input that is a view (a transpose, a slice of a wider buffer, one channel of an interleaved one) has strides
a contiguous tensor of its shape does not. A kernel given strides computed from the shape (`x.shape[1]` for
`x.stride(0)`, `1` for a column stride), or another tensor's, reads the wrong elements of such a view and the
right ones of a contiguous copy. So each strided input is given to the candidate as a contiguous copy of the same
values (the golden does not change): where that alone makes the candidate pass, the candidate mishandles that
input's layout, a fact, not a guess. The diagnosis names the input, its strides against a contiguous tensor's, and
the lines that read it; the repair search starts at the host lines that pass the strides its loads use and at the
loads, and the fix is either the kernel given the view's own strides or the view made contiguous first (a patch
this experiment has already seen pass).
"""

from __future__ import annotations

import torch

from tools import thresholds as T
from tools.diagnosis.context import RunContext
from tools.diagnosis.experiments import Result, confirmed_result, said, summary_of, the_run, unexplained_output
from tools.diagnosis.registry import experiment
from tools.diagnosis.trials import InputsChange, TrialRunner
from tools.models.diagnosis import Diagnosis, Location
from tools.repair import reach
from tools.repair.source import SourceFacts

ID = "contiguous_inputs"
QUESTION = (
    "does the candidate read a strided input (a transpose, a slice, one channel of several) as if it were "
    "contiguous? (each such input given as a contiguous copy of the same values: a kernel that ignores the view's "
    "strides then passes)"
)


def _contiguous(indices: list[int]) -> InputsChange:
    def change(inputs: list) -> list:
        return [t.contiguous() if i in indices else t for i, t in enumerate(inputs)]

    return change


def _strided(inputs: list) -> list[int]:
    return [i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.numel() > 1 and not t.is_contiguous()][
        : T.CONTIGUOUS_MAX_INPUTS
    ]


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    return torch.empty(shape, device="meta").stride()


def _search_lines(source: str, loads: list[int]) -> list[int]:
    """The host lines passing what the input's loads are addressed with (its strides), then the loads."""
    lines: list[int] = []
    for load in loads:
        lines += [n for n in reach.launched_parameter_lines(source, load) if n not in lines]
    return lines + [n for n in loads if n not in lines]


@experiment(ID, QUESTION, tests=("layout_mismatch",), before="access_trace")
def contiguous_inputs(
    ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]
) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    stored = ctx.inputs_of(ctx.primary_seed) or []
    strided = _strided(stored)
    if target is None or not strided or not ctx.source:
        return None
    tried = [[i] for i in strided] + ([strided] if len(strided) > 1 else [])
    runs = [
        {
            "label": f"input{'s' if len(g) > 1 else ''} {', '.join(map(str, g))} contiguous",
            "candidate_inputs": _contiguous(g),
        }
        for g in tried
    ]
    trials = runner.run_all(runs, stop=lambda trial: trial.passed)
    summaries = [the_run(target)] + [summary_of(trial, target.name) for trial in trials]
    passed = next((g for g, trial in zip(tried, trials, strict=False) if trial.passed), None)
    if passed is None:
        return said(
            ID,
            summaries,
            f"contiguous copies of the strided inputs ({len(trials)} tried) do not make the candidate pass",
        )
    names = reach.forward_arguments(ctx.source)
    views = [
        f"input {i}{f' (`{names[i]}`)' if i < len(names) else ''} {list(stored[i].shape)} with strides "
        f"{tuple(stored[i].stride())} (contiguous: {_contiguous_strides(tuple(stored[i].shape))})"
        for i in passed
    ]
    loads = [line for i in passed for line in reach.accesses_of(ctx.source, f"input {i}")]
    finding = (
        f"given as a contiguous copy of the same values, {' and '.join(views)} make{'s' if len(passed) == 1 else ''} "
        "the candidate pass: it reads that view as if it were contiguous (strides taken from the shape or from "
        "another tensor, not the view's own)"
    )
    fix = (
        "pass the kernel the view's own strides (x.stride(d)) and use them in its addresses, or make the input "
        "contiguous at the start of forward (x = x.contiguous())"
    )
    reads = f", read at line{'s' if len(loads) > 1 else ''} {', '.join(map(str, loads))}" if loads else ""
    result = confirmed_result(
        ID,
        summaries,
        finding,
        target,
        "layout_mismatch",
        f"{finding}{reads}. Fix: {fix}",
        {"inputs": passed, "load_lines": loads, "search_lines": _search_lines(ctx.source, loads)},
        ["fix_layout"],
    )
    # the input, not a line: which of the lines that pass its strides or read it is wrong, the search says
    result.found[0].location = Location(
        description=f"input {passed[0]}{reads}: a strided view read as if contiguous",
        file=ctx.task.candidate_name,
        tensor=f"input {passed[0]}",
    )
    return result
