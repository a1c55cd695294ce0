"""The text block of each tool result: a summary line an agent can act on, then a few details.

The full result is in structuredContent; this is what a human or a text-only client reads.
"""

from __future__ import annotations

MAX_LINES = 12


def _error_lines(error) -> list[str]:
    if error is None:
        return []
    lines = [f"error ({error.phase}): {error.type}: {error.message.splitlines()[0] if error.message else ''}"]
    if error.file and error.line:
        lines.append(f"  at {error.file}:{error.line}" + (f":{error.column}" if error.column else ""))
    if error.source_line:
        lines.append(f"  | {error.source_line.strip()}")
    if error.hint:
        lines.append(f"hint: {error.hint}")
    return lines


def _overrun_note(result) -> str:
    """Seeds whose values pass but whose stores went past an output's end: they fail the run all the same."""
    seeds = sorted({w.seed for w in result.checks.out_of_bounds_writes if w.seed in {s.seed for s in result.seeds}})
    if not seeds:
        return ""
    shown = ", ".join(map(str, seeds[:5]))
    return f"; but on {len(seeds)} of them ({shown}) a store went past an output's end, which fails the run"


def run_accuracy(result) -> str:
    lines = [result.summary]
    if result.seeds and len(result.seeds) > 1:
        failing = [s for s in result.seeds if not s.passed]
        lines.append(
            f"seeds: {len(result.seeds) - len(failing)} pass, {len(failing)} fail"
            + (f" ({', '.join(str(s.seed) for s in failing[:5])})" if failing else "")
            + _overrun_note(result)
        )
    lines += _error_lines(result.error)
    lines += [f"warning: {w}" for w in result.warnings[:4]]
    backend = result.backend.name if result.backend else "?"
    lines.append(f"run_id: {result.run_id}; backend {backend}; {result.timings.total_s:.2f} s")
    if result.next_step:
        lines.append(f"next: {result.next_step}")
    return "\n".join(lines[:MAX_LINES])


def run_accuracy_batch(result) -> str:
    lines = [result.summary]
    for c in result.candidates[: MAX_LINES * 2]:
        lines.append(
            f"#{c.index} {c.verdict or 'error'} {c.run_id or '-'} {c.candidate}: {c.summary.splitlines()[0][:120]}"
        )
    if len(result.candidates) > MAX_LINES * 2:
        lines.append(f"... {len(result.candidates) - MAX_LINES * 2} more in structuredContent")
    lines += [f"lost worker: {r}" for r in result.reruns]
    if result.best is not None:
        lines.append(f"best: #{result.best} (the first that passes)")
    lines.append(f"next: {result.next_step}")
    return "\n".join(lines)


def compile_kernel(result) -> str:
    lines = [result.summary]
    for k in result.kernels[:6]:
        stats = k.resources()
        lines.append(
            f"kernel {k.name} [{k.target}]: {'ok' if k.compiled else 'FAILED'}" + (f"; {stats}" if stats else "")
        )
    lines += _error_lines(result.error)
    lines += [f"warning: {w}" for w in result.warnings[:3]]
    if result.next_step:
        lines.append(f"next: {result.next_step}")
    return "\n".join(lines[:MAX_LINES])


def explain_failure(result) -> str:
    lines = [result.summary]
    for d in result.diagnoses[1:4]:
        lines.append(f"also: {d.pattern} ({d.confidence:.2f}, {d.tested})")
    primary = result.diagnoses[0] if result.diagnoses else None
    if primary and primary.location:
        lines.append(f"where: {primary.location.description}")
    for outcome in result.decisive_experiments()[:3]:
        lines.append(f"experiment {outcome.id}: {outcome.finding}")
    if result.fingerprint and result.fingerprint_tells():
        lines.append(
            "precision fingerprint (the candidate's MERE against each emulated precision, closest first): "
            + "; ".join(p.describe() for p in result.fingerprint[:2])
        )
    if result.heatmap:
        lines.append(f"heatmap: {result.heatmap}")
    lines.append(f"next: {result.next_step}")
    return "\n".join(lines[:MAX_LINES])


def suggest_fix(result) -> str:
    lines = [result.summary]
    for fix in result.fixes:
        state = (
            "verified"
            if fix.verified
            else (
                f"not verified ({fix.verification.verdict})"
                if fix.verification
                else "patch"
                if fix.patch
                else "guidance"
            )
        )
        measured = f"; {fix.verification.describe()}" if fix.verification else ""
        lines.append(f"- {fix.fix} [{state}]: {fix.title}{measured}")
    top = next((f for f in result.fixes if f.patch), None)
    if top and top.patch:
        diff = top.patch.splitlines()
        lines.extend(diff[:40] + (["... (full patch in structuredContent)"] if len(diff) > 40 else []))
    lines.append(f"next: {result.next_step}")
    return "\n".join(lines)


def benchmark_kernel(result) -> str:
    lines = [result.summary]
    for flag in result.flags[:4]:
        lines.append(f"flag {flag.id}: {flag.message}")
    if result.method:
        lines.append(f"method: {result.method}")
    lines += _error_lines(result.error)
    lines += [f"warning: {w}" for w in result.warnings[:3]]
    if result.next_step:
        lines.append(f"next: {result.next_step}")
    return "\n".join(lines[:MAX_LINES])


def mutate(result) -> str:
    lines = [result.summary]
    lines += [f"{op}: {killed}/{total} caught" for op, (killed, total) in list(result.by_operator.items())[:4]]
    survivors = [m for m in result.mutants if not m.caught and not m.gpu_compile_error]
    lines += [
        f"survivor {m.operator} #{m.site}" + (f" (caught with {m.caught_with})" if m.caught_with else "")
        for m in survivors[:3]
    ]
    lines += [f"advice: {a}" for a in result.advice[:2]]
    return "\n".join(lines[:MAX_LINES])


#: The text block of each tool's result; a tool without one gets its result's summary.
RENDERERS = {
    "run_accuracy": run_accuracy,
    "run_accuracy_batch": run_accuracy_batch,
    "compile_kernel": compile_kernel,
    "explain_failure": explain_failure,
    "suggest_fix": suggest_fix,
    "benchmark_kernel": benchmark_kernel,
    "mutate": mutate,
}


def summary_only(result) -> str:
    return str(getattr(result, "summary", ""))


def renderer(tool: str):
    return RENDERERS.get(tool, summary_only)
