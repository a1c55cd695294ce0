"""The replay experiment: the control every trial-based finding needs.

Experiments and the repair search say "with this change the candidate passes". That means something only if the
unchanged candidate, re-run the same way on the same seed's inputs, still fails: otherwise every change "passes"
and the first one tried is claimed as the cause. So before any other trial the unchanged candidate is re-run on the
failing seed's stored inputs. Where it fails again nothing is said (the usual case). Where it passes, the failure
depends on something a re-run does not repeat (programs racing on shared memory, a read of memory nothing wrote,
an input layout the re-runs do not keep), and no experiment runs: the detectors' hypotheses stay untested, and
suggest_fix does not call a patch verified by runs that the unchanged candidate passes too.
"""

from __future__ import annotations

from tools.diagnosis.context import RunContext
from tools.diagnosis.experiments import Result, summary_of
from tools.diagnosis.registry import experiment
from tools.diagnosis.repair import failing_output
from tools.diagnosis.trials import UNCHANGED_INPUTS, TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome
from tools.repair.source import SourceFacts

ID = "replay"
QUESTION = (
    "does the unchanged candidate fail again when re-run on the failing seed's own inputs? (the control of every "
    "trial: where it passes, a change that passes shows nothing)"
)
#: The start of the finding of a replay that passed (suggest_fix reads it: no verification is to be trusted).
NOT_REPRODUCED = "the failure does not reproduce"


@experiment(ID, QUESTION, tests=(), before="margin_fill")
def replay(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = failing_output(ctx)
    if target is None:
        return None
    trial = runner.run("the unchanged candidate re-run on the seed's inputs", inputs_key=UNCHANGED_INPUTS)
    if not trial.clean:
        return None  # it fails again (or errs): the trials that follow have their control
    finding = (
        f"{NOT_REPRODUCED}: the unchanged candidate passes when re-run on seed {ctx.primary_seed}'s inputs, so what "
        "made it fail is not repeated by a re-run (programs racing on shared memory, a read of memory nothing "
        "wrote, an input layout re-runs do not keep); no experiment is run, since any change would seem to "
        "repair it. Run run_accuracy again with the same seeds: a verdict that changes between runs is "
        "nondeterminism in the candidate"
    )
    outcome = ExperimentOutcome(id=ID, question=QUESTION, trials=[summary_of(trial, target.name)], finding=finding)
    return Result(outcome, settled=True)


def not_reproduced(outcomes: list[ExperimentOutcome]) -> bool:
    """The replay found the unchanged candidate passing: no trial or re-run can verify a change."""
    return any(o.id == ID and o.finding.startswith(NOT_REPRODUCED) for o in outcomes)
