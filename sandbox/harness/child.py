"""The first code a forked job runs: read the job, isolate, run the job kind, write the result.

Everything from the job directory (spec, sources, inputs) is read and the result descriptor
ready (the pool's shared memory file, handed over with the command, or else result.bin in the job
directory) before isolation, while the host directory is still visible; then the process isolates
itself and only the open result descriptor leads back out. The result bundle is the private channel:
stdout and stderr are only captured for the user, never parsed.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import time
import traceback

from sandbox import backends, protocol, reports, result_channel, tensorio
from sandbox.harness import candidate, common, compile, interpreter_pace, offline, reference, timing
from sandbox.isolation import CgroupState, JobLimits, Plan, Prepared, complete, prepare

JOBS = {
    "reference": reference.run,
    "candidate": candidate.run,
    "compile": compile.run,
    "offline_compile": offline.run,
    "timing": timing.run,  # benchmark_kernel
}
EXIT_OK, EXIT_HARNESS_ERROR = 0, 3
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    # the job's uid has no passwd entry: getpass.getuser() (torch's and Triton's cache paths) reads these first
    "USER": "sandbox",
    "LOGNAME": "sandbox",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "TRITON_HOME": "/tmp",
    "TRITON_CACHE_DIR": "/tmp/.triton/cache",
    "OMP_NUM_THREADS": "1",
    "TRITON_DEFAULT_FP_FUSION": "1",  # Triton 3.9's default, set to silence its deprecation warning
}

#: The cgroup of a job run without the zygote (no cgroup of its own).
WITHOUT_ZYGOTE = CgroupState(False, "started without the zygote")


def _clean_environment(backend, extra: dict) -> None:
    os.environ.clear()
    os.environ.update(BASE_ENV)
    os.environ.update(backend.env)
    os.environ.update(extra)


def run_job(
    host_dir: str,
    plan: Plan,
    slot: int,
    prepared: Prepared | None = None,
    result_fd: int | None = None,
    done_fd: int | None = None,
    cgroup: CgroupState = WITHOUT_ZYGOTE,
) -> None:
    """Never returns: exits the forked process with EXIT_OK once a result is written. `prepared`:
    the isolation this process already did while it waited for the job (a warm spare); `result_fd`:
    the pool's shared result file (sandbox/result_channel.py), else the result goes to result.bin;
    `done_fd`: where to say the result is written (the zygote reports the job finished then);
    `cgroup`: (whether the zygote put this process in a cgroup of its own, what it is or why not)."""
    code = EXIT_HARNESS_ERROR
    try:
        started = time.perf_counter()
        if prepared is None:
            prepared = prepare(plan)
        here = prepared.host(host_dir)  # the host's files stay reachable until complete()
        with open(os.path.join(here, "job.json")) as f:
            spec = json.load(f)
        given = {}
        inputs_path = os.path.join(here, "inputs.bin")
        if os.path.exists(inputs_path):
            given = tensorio.read_bundle(inputs_path, max_bytes=1 << 40)[1]
        if result_fd is None:
            result_fd = os.open(os.path.join(here, "result.bin"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        files = {name: text.encode() for name, text in spec["files"].items()}
        writable = spec["limits"].get("writable", {})
        limits = JobLimits(
            tmp_mb=spec["limits"]["tmp_mb"],
            rlimits=spec["limits"]["rlimits"],
            data_budget=spec["limits"].get("data_budget", 0),
            uid=spec["limits"]["uid_base"] + slot,
            gid=spec["limits"]["gid"],  # every job's group: the Triton caches are its
            writable=writable,
            writable_cap_mb=spec["limits"].get("writable_cap_mb", 0),
            cgroup=cgroup,
        )
        backend = backends.by_name(spec["backend"])
        report = prepared.report
        job_dir = complete(prepared, plan, limits, files)
        extra_env = dict(spec.get("env", {}))
        for host, inside in writable.items():  # the candidate's Triton cache (GPU backends)
            isolated = report.items.get("readonly_root", {}).get("active")
            extra_env["TRITON_CACHE_DIR"] = inside if isolated else host
            if isolated:
                # Jobs of the same source on other slots and pools (other uids, one group) write the
                # same cache directories: Triton makes them with the process's umask, so open them to
                # the group, never to other users. Nothing else the job writes is visible (a private /tmp).
                os.umask(0o007)
        _clean_environment(backend, extra_env)
        # the zygote sends STACK_SIGNAL to a job past its time before it kills it: where it hangs
        faulthandler.register(protocol.STACK_SIGNAL, file=sys.stderr, all_threads=True)
        os.chdir("/tmp" if report.items.get("private_tmp", {}).get("active") else job_dir)
        budget = spec["limits"].get("timeout_s")  # counted by the zygote from when it sent the job
        interpreter_pace.set_deadline(None if budget is None else budget - (time.perf_counter() - started))
        setup_s = time.perf_counter() - started
        user_files = {f"{job_dir}/{name}": spec["display_names"].get(name, name) for name in files}
        try:
            meta, values = JOBS[spec["kind"]](spec, job_dir, backend, user_files, given)
            meta["status"] = "ok"
        except common.UserCodeError as exc:
            info = dict(exc.info)
            partial = info.pop("partial_meta", {}) or {}
            meta, values = {**partial, "status": "user_error", "error": info}, {}
        meta["isolation"] = report.items
        meta["setup_s"] = setup_s
        meta["job_s"] = time.perf_counter() - started
        try:  # sent whatever the check says: the server parses it again and decides (malformed_report)
            reports.check(spec["kind"], meta)
        except reports.ReportError as exc:
            print(f"kernel-eval harness: this job's report does not have its record's shape: {exc}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        tensorio.write_bundle(result_fd, values, meta, tensor_bytes=common.host_bytes)
        os.close(result_fd)
        code = EXIT_OK
        if done_fd is not None:
            try:
                os.write(done_fd, result_channel.WRITTEN)
            except OSError:  # the job's code closed or spoke on it: reported when it exits
                pass
    except BaseException:  # noqa: BLE001 - the harness itself failed: say so on stderr
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)
