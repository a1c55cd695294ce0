"""`kernel-eval batch`: the manifest, the progress bar on stderr, the table."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from tools import sources
from tools.cli.args import UsageError
from tools.errors import describe_validation_error
from tools.models.accuracy import RunAccuracyRequest
from tools.models.batch import BatchItem, BatchReport

MAX_MANIFEST_BYTES = 64 << 20


def read_manifest(path: str) -> list[RunAccuracyRequest]:
    """Every line a RunAccuracyRequest (blank lines skipped); all problems at once, by line."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path}: no such file (a manifest has one run_accuracy request JSON object per line)")
    if file.stat().st_size > MAX_MANIFEST_BYTES:
        raise UsageError(f"{path}: larger than {MAX_MANIFEST_BYTES >> 20} MiB; give sources as .py paths")
    requests, problems = [], []
    for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            problems.append(f"line {number}: not JSON ({exc})")
            continue
        try:
            requests.append(RunAccuracyRequest.model_validate(data))
        except ValidationError as exc:
            problems.append(f"line {number}: {describe_validation_error(exc)}")
    if problems:
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise UsageError(f"{path}: {shown}. Each line is a JSON object with the fields of `kernel-eval run`")
    if not requests:
        raise UsageError(f'{path}: no requests (one JSON object per line, e.g. {{"reference": ..., "candidate": ...}})')
    return requests


class InOrder:
    """Emits items in index order as they finish (an item waits for the ones before it)."""

    def __init__(self, emit: Callable[[BatchItem], None]):
        self.emit, self.next, self.waiting = emit, 0, {}

    def add(self, item: BatchItem) -> None:
        self.waiting[item.index] = item
        while self.next in self.waiting:
            self.emit(self.waiting.pop(self.next))
            self.next += 1


class ProgressBar:
    """On a terminal a bar redrawn in place; otherwise one line per finished request."""

    WIDTH = 30

    def __init__(self, total: int, stream=None):
        self.total, self.done, self.stream = total, 0, stream or sys.stderr
        self.tty = self.stream.isatty()

    def update(self, item: BatchItem) -> None:
        self.done += 1
        if self.tty:
            filled = self.WIDTH * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} #{item.index} {item.verdict:14}")
        else:
            self.stream.write(f"[{self.done}/{self.total}] request {item.index}: {item.verdict}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _name(request: RunAccuracyRequest, index: int) -> str:
    """The candidate's path as the manifest spells it (whatever its suffix); candidate[i] for source text."""
    return sources.given_path(request.candidate) or f"candidate[{index}]"


def print_table(report: BatchReport, requests: list[RunAccuracyRequest]) -> None:
    rows = []
    for item in report.items:
        result = item.result
        summary = result.summary if result else f"{item.error.kind}: {item.error.message}" if item.error else ""
        if item.benchmark is not None:  # the timing's verdict and speedup first: what a speed search reads
            speedup = item.benchmark.speedup
            timing = f" {speedup.value:.3g}x" if speedup is not None else ""
            summary = f"timing {item.benchmark.verdict}{timing} | {summary}"
        rerun = " (rerun)" if item.attempts > 1 else ""
        rows.append(
            (
                str(item.index),
                item.verdict + rerun,
                result.run_id if result else "-",
                item.worker or "-",
                _name(requests[item.index], item.index),
                summary.splitlines()[0][:110] if summary else "",
            )
        )
    header = ("#", "verdict", "run_id", "worker", "candidate", "summary")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:5])) + "  " + row[5])
    for line in report.reruns:
        print(f"lost worker: {line}")
    print(f"{report.summary}; {report.candidates_per_minute:.1f} candidates/min")
