"""The mutation-generated diagnosis corpus: every operator applied to every correct kernel.

Shared by tests/test_mutation_corpus.py (a fast subset) and benchmarks/diagnosis_eval.py (all of
it). A mutant is run through run_accuracy under the inputs that expose its operator (the
operator's exposures that the kernel's manifest says the correct kernel passes, in order, until
one fails), then
explain_failure and, where the operator's fix can be patched, suggest_fix(verify=True). A mutant
that passes is equivalent (the comparator cannot tell it from the original): reported, not counted,
unless the run recorded loads reading past its tensors (a latent out-of-bounds read, cpu only).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tools.mutate.operators import OPERATORS, Exposure, Operator

ROOT = Path(__file__).resolve().parents[2]
KERNELS = Path(__file__).parent / "kernels"
FALSE_DIAGNOSIS_CONFIDENCE = 0.5
#: Pinned, so the corpus gives the same numbers on every run (the correct kernels pass on them).
SEEDS = [11, 12]


def use_kernels(folder: Path) -> None:
    """Point the corpus at another folder of kernels in the same format (e.g. a held-out set)."""
    global KERNELS
    KERNELS = Path(folder).resolve()


def kernels() -> list[dict]:
    return json.loads((KERNELS / "manifest.json").read_text())


def supported(kernel: dict) -> list[Exposure]:
    return [Exposure(p.get("input_profile", "task"), tuple(p["value_range"]) if p.get("value_range") else None)
            for p in kernel["profiles"]]


def exposures_for(op: Operator, kernel: dict) -> list[Exposure]:
    """The operator's exposures the correct kernel is known to pass under (else the task's inputs)."""
    allowed = supported(kernel)
    return [e for e in op.exposures if e in allowed] or [Exposure()]


@dataclass
class Case:
    kernel: str
    family: str
    operator: str
    site: int
    source: str
    exposures: list[Exposure]

    @property
    def name(self) -> str:
        return f"{self.kernel}/{self.operator}#{self.site}"


def plan(backend: str, kernel_names: list[str] | None = None, operators: list[str] | None = None,
         per_operator: int | None = None) -> list[Case]:
    cases, taken = [], {}
    for kernel in kernels():
        if kernel_names and kernel["name"] not in kernel_names:
            continue
        source = (KERNELS / kernel["name"] / "candidate.py").read_text()
        for op in OPERATORS.values():
            if (operators and op.id not in operators) or (op.gpu_only and backend == "cpu"):
                continue
            for site, mutant in enumerate(op.mutants(source)):
                if per_operator is not None and taken.get(op.id, 0) >= per_operator:
                    break
                taken[op.id] = taken.get(op.id, 0) + 1
                cases.append(Case(kernel["name"], kernel["family"], op.id, site, mutant, exposures_for(op, kernel)))
    return cases


@dataclass
class Outcome:
    case: str
    kernel: str
    operator: str
    exposure: str
    verdict: str
    equivalent: bool
    primary: str | None = None
    primary_tested: str | None = None
    expected: list[str] = field(default_factory=list)
    top1: bool = False
    detected: bool = False  # an expected pattern among the diagnoses of confidence >= 0.5
    patchable: bool = False
    fix_verified: bool = False
    verified_fixes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _request(case_kernel: str, candidate: str, exposure: Exposure, backend: str, num_seeds: int):
    from tools.models.accuracy import RunAccuracyRequest

    return RunAccuracyRequest(reference=str(KERNELS / case_kernel / "reference.py"), candidate=candidate, backend=backend,
                              input_profile=exposure.input_profile, value_range=exposure.value_range, seeds=SEEDS[:num_seeds],
                              determinism="off" if backend == "cpu" else "warn")


def run_case(case: Case, backend: str, num_seeds: int = 2, verify: bool = True) -> Outcome:
    from tools.accuracy import run_accuracy
    from tools.diagnosis import explain_failure
    from tools.fixes import suggest_fix
    from tools.models.diagnosis import ExplainRequest, FixRequest

    started = time.perf_counter()
    op = OPERATORS[case.operator]
    for exposure in case.exposures:  # the first that exposes the bug; equivalent if none does
        run = run_accuracy(_request(case.kernel, case.source, exposure, backend, num_seeds))
        if run.verdict != "pass" or run.checks.out_of_bounds_reads:
            break
    # A mutant that does not run (the operator made code Triton rejects) is no numerical bug:
    # like an equivalent one, it is reported and not counted. A passing mutant whose loads were
    # recorded reading past its tensors (cpu) is a latent defect the tool reports: counted.
    latent = run.verdict == "pass" and bool(run.checks.out_of_bounds_reads)
    outcome = Outcome(case.name, case.kernel, case.operator, _label(exposure), run.verdict,
                      run.verdict in ("pass", "compile_error", "runtime_error", "unsupported") and not latent,
                      expected=list(op.expected), patchable=op.patchable and op.fix is not None)
    if not outcome.equivalent:
        explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
        credible = [d for d in explained.diagnoses if d.tested != "refuted"]
        if credible:
            outcome.primary, outcome.primary_tested = credible[0].pattern, credible[0].tested
        outcome.top1 = outcome.primary in op.expected
        outcome.detected = any(d.pattern in op.expected and d.confidence >= FALSE_DIAGNOSIS_CONFIDENCE for d in credible)
        if verify and outcome.patchable:
            fixes = suggest_fix(FixRequest(run_id=run.run_id, verify=True))
            outcome.verified_fixes = [f.fix for f in fixes.fixes if f.verified]
            outcome.fix_verified = bool(outcome.verified_fixes)  # verified = the patched mutant passes run_accuracy
    outcome.seconds = time.perf_counter() - started
    return outcome


def false_diagnoses(kernel: dict, backend: str, num_seeds: int = 2) -> list[str]:
    """Diagnoses of confidence >= 0.5 on the correct kernel, under every exposure its manifest lists."""
    from tools.accuracy import run_accuracy
    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    found = []
    candidate = str(KERNELS / kernel["name"] / "candidate.py")
    for exposure in supported(kernel):
        run = run_accuracy(_request(kernel["name"], candidate, exposure, backend, num_seeds))
        explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
        found += [f"{kernel['name']} ({_label(exposure)}): {d.pattern}" for d in explained.diagnoses
                  if d.confidence >= FALSE_DIAGNOSIS_CONFIDENCE]
        if run.verdict != "pass":
            found.append(f"{kernel['name']} ({_label(exposure)}): verdict {run.verdict}")
    return found


def _label(exposure: Exposure) -> str:
    return exposure.input_profile + (f" {list(exposure.value_range)}" if exposure.value_range else "")


def metrics(outcomes: list[Outcome]) -> dict:
    """Per operator and overall: mutants, equivalent, counted, detected, top-1, fix verified / patchable."""
    def block(items: list[Outcome]) -> dict:
        counted = [o for o in items if not o.equivalent]
        patchable = [o for o in counted if o.patchable]
        return {"mutants": len(items), "equivalent": len(items) - len(counted), "counted": len(counted),
                "detected": sum(o.detected for o in counted), "top1": sum(o.top1 for o in counted),
                "top1_rate": sum(o.top1 for o in counted) / len(counted) if counted else None,
                "patchable": len(patchable), "fix_verified": sum(o.fix_verified for o in patchable),
                "fix_rate": sum(o.fix_verified for o in patchable) / len(patchable) if patchable else None}

    by_operator = {op: block([o for o in outcomes if o.operator == op]) for op in dict.fromkeys(o.operator for o in outcomes)}
    families = {}
    for o in outcomes:
        families.setdefault(OPERATORS[o.operator].family, []).append(o)
    return {"overall": block(outcomes), "by_operator": by_operator, "by_family": {f: block(v) for f, v in families.items()}}


def as_json(outcomes: list[Outcome]) -> list[dict]:
    return [asdict(o) for o in outcomes]
