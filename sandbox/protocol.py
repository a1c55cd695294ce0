"""The vocabulary of job bundles, shared by the server (tools/) and the jobs (sandbox/harness/).

A job's given inputs and its results are flat dicts of named trees; per seed (by its index in the
job's seed list) the names are `s{index}/{part}`:

    init    get_init_inputs() of the task      (reference job -> server -> candidate job, if given)
    inputs  the forward's inputs for the seed  (same)
    golden  the FP64 golden output             (reference job)
    cpu     the CPU same-precision control     (reference job; None where the op has no CPU kernel)
    actual  the candidate's output             (candidate job)
    accepted  a candidate output run_accuracy accepted (benchmark_kernel -> timing job: what timed
            outputs are checked against)
    timed   the output of the last timed forward (timing job)

Inputs normally never travel: both jobs make them from the seed (sandbox/harness/inputs.py) and the
candidate job proves it made the same ones by their fingerprint (`InputPlan`).
"""

from __future__ import annotations

import signal
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

#: Whose an error is to fix: the caller's request, the candidate's code, or the server's machinery.
Blame = Literal["caller", "candidate", "server"]
#: The CLI's exit code per blame (a candidate's negative verdict also exits 1).
EXIT_CODES: dict[Blame, int] = {"caller": 2, "candidate": 1, "server": 3}


class KernelEvalError(Exception):
    """The one root of the errors this project raises on purpose. `blame` decides, in one place per
    surface, the MCP error text, the CLI's exit code (EXIT_CODES) and a batch item's error kind."""

    blame: ClassVar[Blame] = "server"

    def client_text(self) -> str:
        """What a client is told (the message; a server fault says it is not the kernel's)."""
        return str(self)


#: The zygote sends it to a job past its time, a moment before the kill; the job's harness dumps its
#: Python stack on stderr (faulthandler), which the timeout error then quotes: where it hung.
STACK_SIGNAL = signal.SIGUSR2
STACK_GRACE_S = 0.5

GOLDEN_PARTS = ("init", "golden", "cpu")
PARTS = ("init", "inputs", "golden", "cpu")


def key(index: int, part: str) -> str:
    return f"s{index}/{part}"


def seed_part(values: dict, index: int, part: str) -> Any:
    return values.get(key(index, part))


def given_inputs(per_seed: list[tuple[Any, Any]]) -> dict:
    """A job's `inputs` bundle from (init, inputs) per seed, in the job's seed order."""
    given = {}
    for index, (init, inputs) in enumerate(per_seed):
        given[key(index, "init")] = init
        given[key(index, "inputs")] = inputs
    return given


@dataclass(frozen=True)
class InputPlan:
    """How a job gets its inputs without files: it runs the reference's get_init_inputs() /
    get_inputs() for each seed on `device` (then the task's input options) before any candidate
    code is imported, and checks each seed's result against `fingerprints` (made by the reference
    job). A mismatch (a get_inputs that is not reproducible from the seed) fails the job with
    INPUTS_DIFFER, and the server sends the inputs as files instead."""

    device: str
    fingerprints: list[str]
    #: the reference's source and the name errors show: given in the job's spec, never as a file in
    #: /job, and never importable by the candidate (its module is dropped once the inputs exist)
    reference: str
    reference_name: str

    def to_options(self) -> dict:
        return {"make_inputs": asdict(self)}

    @staticmethod
    def from_options(options: dict) -> InputPlan | None:
        raw = options.get("make_inputs")
        if not raw:
            return None
        return InputPlan(
            str(raw["device"]), [str(f) for f in raw["fingerprints"]], str(raw["reference"]), str(raw["reference_name"])
        )


#: error type a job reports when the inputs it made differ from the reference job's
INPUTS_DIFFER = "inputs_differ"
