"""How a sandboxed job ended, as a verdict and an ErrorInfo an agent can act on."""

from __future__ import annotations

import re
from typing import Literal, TypeVar

from sandbox import pool as sandbox_pool
from sandbox import reports
from sandbox.pool import STACK_HEADER, JobResult
from tools.errors import ServerFault
from tools.models.task import ErrorInfo, IsolationItem

SIGNALS = {
    "SIGSEGV": "segmentation fault: invalid memory access, e.g. an unmasked out-of-bounds tl.load/tl.store",
    "SIGBUS": "bus error: misaligned or out-of-range memory access",
    "SIGKILL": "killed: the memory limit (or the OOM killer) ended it",
    "SIGXCPU": "CPU time limit exceeded",
    "SIGABRT": "aborted (an assertion in native code, e.g. a CUDA/driver abort)",
    "SIGFPE": "arithmetic fault in native code",
    "SIGILL": "illegal instruction in native code",
}

#: (text found in the error message, hint)
HINTS = (
    (
        "Torch not compiled with CUDA",
        "the cpu backend runs the Triton interpreter on CPU tensors: allocate with device=x.device, never 'cuda'",
    ),
    (
        "0 active drivers",
        "the kernel was compiled for a GPU: on the cpu backend the interpreter must be on; do not set triton.knobs / "
        "TRITON_INTERPRET yourself",
    ),
    ("MemoryError", "the job exceeded its memory budget (memory_mb); reduce sizes or raise memory_mb"),
    ("can't allocate memory", "the job exceeded its memory budget (memory_mb); reduce sizes or raise memory_mb"),
    ("out of memory", "the device ran out of memory"),
    ("arange's range must be a power of 2", "tl.arange needs a power-of-two length: round BLOCK up and mask the tail"),
    ("must have equal reduction dimensions", "the shapes given to tl.dot do not agree on K"),
    (
        "CUDA error",
        "a CUDA fault (e.g. an illegal address from an unmasked load/store): check masks and pointer arithmetic",
    ),
    ("ModuleNotFoundError", "only torch, triton, numpy and the standard library exist in the sandbox"),
    ("Read-only file system", "the sandbox's filesystem is read-only except /tmp"),
    ("Operation not permitted", "the sandbox forbids network access, ptrace, mounts and new namespaces"),
)

CUDA_FAULT_MARKERS = ("CUDA error", "illegal memory access", "cudaErrorIllegalAddress", "device-side assert")

#: The verdicts a job that did not run to its result gets (a subset of every tool's verdicts).
FaultVerdict = Literal["compile_error", "runtime_error", "timeout", "crashed", "unsupported"]
Fault = tuple[FaultVerdict, ErrorInfo]
R = TypeVar("R", bound=reports.JobEnvelope)


def hint_for(message: str) -> str | None:
    for needle, hint in HINTS:
        if needle in message:
            return hint
    return None


def _tail(text: str, limit: int = 1500) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


#: A frame of faulthandler's dump: `  File "/job/candidate.py", line 33 in add_kernel` (innermost first).
_DUMPED_FRAME = re.compile(
    r'^\s*File "(?:/job|[^"]*/kernel-eval-job-[^/"]*)/(?P<file>candidate|reference)\.py", '
    r"line (?P<line>\d+) in (?P<fn>\S+)"
)


def hang_stack(stack: str) -> list[tuple[str, int, str]]:
    """(file, line, function) of the job's own sources in the stack it dumped when its time was up
    (sandbox.protocol.STACK_SIGNAL, JobResult.stack), innermost last; [] when it dumped none."""
    for block in STACK_HEADER.split(stack)[1:]:
        frames = [
            (f"{m['file']}.py", int(m["line"]), m["fn"])
            for m in map(_DUMPED_FRAME.match, block.splitlines())
            if m is not None
        ]
        if frames:  # the thread that runs the job's code (the others are the harness's)
            return frames[::-1]
    return []


def hang_site(stack: str) -> tuple[str, int, str] | None:
    """Where a job that ran out of time was: its innermost frame in the candidate's (or reference's) file."""
    frames = hang_stack(stack)
    return frames[-1] if frames else None


def process_fault(
    job: JobResult, timeout_s: float, role: str, sources: dict[str, tuple[str, str]] | None = None
) -> tuple[FaultVerdict, ErrorInfo] | None:
    """(verdict, error) when the job did not end with a readable result; None when it did. `sources`:
    the job's file name -> (text, the name the user knows it by), to quote a line of it."""
    if job.reason == "timeout":
        sources = sources or {}
        site = hang_site(job.stack)
        name, line_text = None, None
        if site is not None:
            text, name = sources.get(site[0], ("", site[0]))
            lines = text.splitlines()
            line_text = lines[site[1] - 1] if 0 < site[1] <= len(lines) else None
        where = f"; it was at {name}:{site[1]} (in {site[2]})" if site else ""
        return "timeout", ErrorInfo(
            phase="run",
            type="timeout",
            message=f"the {role} ran longer than {timeout_s:g} s (wall clock) and was killed{where}",
            file=name,
            line=site[1] if site else None,
            source_line=line_text,
            traceback=[f"{sources.get(f, ('', f))[1]}:{n} in {fn}" for f, n, fn in hang_stack(job.stack)],
            hint="an infinite loop (a while whose condition never changes, a loop bound read from the wrong "
            "tensor), a grid that is far too large, or a problem too big for the interpreter; raise timeout_s if "
            "the work is real",
        )
    if job.reason == "zygote_died":  # the pool retried once already: the server's fault, not the kernel's
        raise ServerFault(
            f"the sandbox failed while running the {role} (a fault of this server, not of the kernel; retry later)"
        )
    if job.reason == "out_of_memory":
        limit = f" of {job.memory_limit_bytes >> 20} MiB" if job.memory_limit_bytes else ""
        return "crashed", ErrorInfo(
            phase="run",
            type="out_of_memory",
            message=f"the {role} used more host memory than its limit{limit} (memory_mb plus its /tmp, the "
            "process it starts from and its result, over all its processes) and the kernel killed it",
            hint="the job exceeded its memory budget (memory_mb); reduce sizes, or raise memory_mb if the work is real",
        )
    if job.reason == "disk_limit":
        return "crashed", ErrorInfo(
            phase="run",
            type="disk_limit",
            message=f"the {role} wrote more than {sandbox_pool.TRITON_CACHE_CAP_MB} MiB into its Triton cache "
            "directory and was killed (a compiled source's kernels take a few MiB)",
            hint="write files only under /tmp (sized by tmp_mb); leave TRITON_CACHE_DIR to Triton",
        )
    if job.reason in ("cancelled", "shutdown"):
        return "crashed", ErrorInfo(phase="run", type=job.reason, message=f"the {role} was {job.reason}")
    if job.signal:
        return "crashed", ErrorInfo(
            phase="run",
            type=job.signal,
            message=f"the {role} process died: {SIGNALS.get(job.signal, job.signal)}"
            + (f". stderr: {_tail(job.stderr, 600)}" if job.stderr.strip() else ""),
        )
    if job.returncode not in (0, None):
        return "crashed", ErrorInfo(
            phase="run",
            type="exit",
            message=f"the {role} exited with status {job.returncode} before writing a result (os._exit? a failure of "
            "the harness?)" + (f" stderr: {_tail(job.stderr, 600)}" if job.stderr.strip() else ""),
        )
    if job.bundle_error:
        return "crashed", ErrorInfo(
            phase="run", type="result", message=f"the {role}'s result could not be read: {job.bundle_error}"
        )
    if job.meta is None:
        return "crashed", ErrorInfo(phase="run", type="result", message=f"the {role} ended without a result")
    return None


#: What reading a job report the harness never wrote raises (pydantic's ValidationError is a ValueError).
MALFORMED_REPORT = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def job_report(job: JobResult, record: type[R], role: str, timeout_s: float) -> R | Fault:
    """A finished job's report as its `record`, or its fault (a tuple): the process's (process_fault), a
    report of another shape (malformed_report, runtime_error) or what its user code raised (user_error)."""
    fault = process_fault(job, timeout_s, role)
    if fault is not None:
        return fault
    try:
        report = reports.parse(record, job.meta, f"the {role}'s report")
    except reports.ReportError as exc:
        return "runtime_error", malformed_report(role, exc)
    if report.status != "ok":
        return user_error(report.error)
    return report


def malformed_report(role: str, exc: BaseException) -> ErrorInfo:
    """A report of the wrong shape: code in the job changed the harness or what it reports."""
    detail = (str(exc).splitlines() or [""])[0][:200]
    return ErrorInfo(
        phase="run",
        type="malformed_report",
        message=f"the {role}'s job reported something the harness never writes ({type(exc).__name__}: {detail}): "
        "its code changed the sandbox's harness or its report",
        hint="leave the sandbox's modules alone: compute the output with Triton kernels and return it",
    )


def user_error(info: reports.UserErrorReport | None) -> tuple[FaultVerdict, ErrorInfo]:
    """The verdict for an exception the candidate's code raised (None: a report that says none)."""
    info = info or reports.UserErrorReport()
    error = ErrorInfo(
        phase=info.phase,
        type=info.type,
        message=info.message,
        file=info.file,
        line=info.line,
        column=info.column,
        source_line=info.source_line,
        traceback=info.traceback[:8],
    )
    error.hint = info.hint or hint_for(f"{error.type}: {error.message}")
    if error.type == "unsupported":  # a construct the interpreter cannot run, not the user's bug
        return "unsupported", error
    if error.phase in ("import", "syntax") or error.type.endswith(("CompilationError", "CompileTimeAssertionFailure")):
        return "compile_error", error
    if any(marker in error.message for marker in CUDA_FAULT_MARKERS):
        return "crashed", error
    return "runtime_error", error


def user_error_summary(verdict: str, error: ErrorInfo) -> str:
    """One line: 'RUNTIME_ERROR at candidate.py:12: ValueError: ...'."""
    kind = "" if error.type == "unsupported" else f"{error.type}: "  # the verdict already says it
    return f"{verdict.upper()}{error.where}: {kind}{error.message}".splitlines()[0]


def isolation(report: reports.JobEnvelope) -> dict[str, IsolationItem]:
    """The job's report of which isolation mechanisms were active."""
    return {k: IsolationItem(active=v.active, detail=v.detail) for k, v in report.isolation.items()}
