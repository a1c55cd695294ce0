"""Job kind `candidate`: run ModelNew on every seed's inputs and record what it did.

Per seed: build ModelNew under the seed (the reference's weights come from the same seed), move
the inputs to the device inside guard margins (sandbox.harness.guards), keep pristine copies, run
the forward under the ForwardMonitor (NaN-poisoned empty allocations, recorded torch calls), count
Triton launches, check the inputs are unchanged; on the interpreter, record loads that read the
guard margins (sandbox.harness.read_watch). Then one seed runs again on fresh copies for a
bitwise determinism check. The outputs go back to the trusted parent, which alone holds the golden
and judges them.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import linecache
import sys
import time

import torch

from sandbox import protocol
from sandbox.harness import access_trace, common, device_time, errors, guards, hooks, inputs, provenance, read_watch
from sandbox.harness import reference as reference_job


def _import_candidate(job_dir: str, user_files: dict) -> type:
    path = f"{job_dir}/candidate.py"
    try:
        module = common.load_module(path, "candidate")
    except BaseException as exc:  # noqa: BLE001 - SyntaxError, ImportError, SystemExit at import ...
        raise common.UserCodeError(errors.describe(exc, user_files, "import")) from None
    model_cls = getattr(module, "ModelNew", None)
    if not isinstance(model_cls, type):
        raise common.UserCodeError(
            errors.error_info(
                "import",
                "AttributeError",
                "the candidate defines no `class ModelNew(nn.Module)` (KernelBench format)",
                user_files.get(path),
            )
        )
    return model_cls


def _forward(
    model_cls,
    init,
    task_inputs,
    seed,
    device,
    dtype,
    recorder,
    monitor,
    guard_fill: str | None = "nan",
    trace=None,
    around=None,
    sources=None,
):
    """One forward under the monitor; `around`: a context manager for the model's call alone (a profile);
    `sources`: given the inputs, parameters and buffers the model is called with (provenance.LaunchReads)."""
    common.seed_all(seed)
    model = common.cast_model(model_cls(*init), dtype).to(device).eval()
    dev_inputs = common.to_device(task_inputs, device)
    if trace is not None:
        for position, t in enumerate(common.tree_tensors(dev_inputs)):
            trace.add_input(t, position)
        trace.add_known([t.detach() for t in (*model.parameters(), *model.buffers())])
    monitor.start_forward()
    if guard_fill is not None:
        _guard_model(model, guard_fill, monitor)
        position = itertools.count()  # tree_map visits the tensors in tree_tensors' order
        dev_inputs = common.tree_map(
            lambda t: _guard(t, guard_fill, f"input {next(position)}", monitor, integers=monitor.reads is not None),
            dev_inputs,
        )
    if sources is not None:
        sources([*common.tree_tensors(dev_inputs), *model.parameters(), *model.buffers()])
    pristine = common.clone(dev_inputs)
    before = recorder.total
    start = time.perf_counter()
    with torch.device(device), monitor, torch.no_grad(), around or contextlib.nullcontext():
        out = model(*dev_inputs)  # factories without device= land on the job's device
    common.synchronize(device)
    _plain_tensors_only(out)
    elapsed = time.perf_counter() - start
    mutated = [
        i
        for i, (now, then) in enumerate(
            zip(common.tree_tensors(dev_inputs), common.tree_tensors(pristine), strict=True)
        )
        if not common.bitwise_equal(now, then)
    ]
    info = {
        "launches": recorder.total - before,
        "mutated_inputs": mutated,
        "forward_s": elapsed,
        "out_of_bounds_writes": monitor.guards.violations(),
    }
    if monitor.reads is not None:
        info["out_of_bounds_reads"] = monitor.reads.found()
    if trace is not None:
        info["trace"], info["trace_values"] = trace.report(common.tree_tensors(out))
    return common.snapshot(out), info


def _plain_tensors_only(out) -> None:
    """A tensor subclass runs its own code in every check and in the copy that is judged (a lying
    __eq__, a contiguous() that hands back other values): the output must be plain tensors."""
    for t in common.tree_tensors(out):
        if type(t) is not torch.Tensor:
            raise common.UserCodeError(
                errors.error_info(
                    "forward",
                    "OutputSubclass",
                    f"the forward returned a {type(t).__module__}.{type(t).__qualname__}, a subclass of torch.Tensor: "
                    "return plain tensors",
                )
            )


def _guard(t: torch.Tensor, fill: str, label: str, monitor, integers: bool = False) -> torch.Tensor:
    """`t` between guard margins (or `t` itself when it cannot be guarded), its margins watched."""
    guarded = guards.guard_input(t, fill, integers=integers)
    if guarded is not t and monitor.reads is not None:
        monitor.reads.watch(guarded, label)
    return guarded


def _guard_model(model: torch.nn.Module, fill: str, monitor) -> None:
    """The model's floating parameters and buffers between guard margins, as the inputs: a weight
    loaded past its end (`tl.load(w_ptr + cols)` without the mask) reads the margin."""
    tensors = [("parameter", name, t) for name, t in model.named_parameters()]
    tensors += [("buffer", name, t) for name, t in model.named_buffers()]
    for kind, name, tensor in tensors:
        plain = tensor.detach()
        guarded = _guard(plain, fill, f"{kind} {name}", monitor)
        if guarded is not plain:  # else not guardable (integer, non-contiguous, empty)
            tensor.data = guarded


def _determinism(first, again) -> dict:
    a, b = common.tree_tensors(first), common.tree_tensors(again)
    if len(a) != len(b):
        return {"checked": True, "bitwise_equal": False, "differing_elements": None, "max_abs_diff": None}
    differing, max_diff = 0, 0.0
    for x, y in zip(a, b, strict=True):
        if common.bitwise_equal(x, y):
            continue
        if x.shape != y.shape:
            return {"checked": True, "bitwise_equal": False, "differing_elements": None, "max_abs_diff": None}
        xf, yf = x.to(torch.float64), y.to(torch.float64)
        neq = ~((xf == yf) | (torch.isnan(xf) & torch.isnan(yf)))
        differing += int(neq.sum())
        diff = (xf - yf).abs()[neq]
        finite = diff[torch.isfinite(diff)]
        max_diff = max(max_diff, float(finite.max()) if finite.numel() else float("inf"))
    return {"checked": True, "bitwise_equal": differing == 0, "differing_elements": differing, "max_abs_diff": max_diff}


def seed_inputs(spec: dict, job_dir: str, user_files: dict, given: dict) -> list[tuple[list, list]]:
    """(init, inputs) per seed: the given ones, or made here from the seeds as the reference job made
    them (options["make_inputs"]), checked by fingerprint. Runs before any candidate code."""
    plan = protocol.InputPlan.from_options(spec["options"])
    seeds = spec["seeds"]
    if plan is None:
        return [
            (list(protocol.seed_part(given, i, "init")), list(protocol.seed_part(given, i, "inputs")))
            for i in range(len(seeds))
        ]
    options = spec["options"]
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    path = f"{job_dir}/.reference.py"  # a name for tracebacks; no such file exists
    module = reference_job.load_reference_source(plan.reference, path, user_files | {path: plan.reference_name})
    user_files = user_files | {path: plan.reference_name}
    made = []
    for i, seed in enumerate(seeds):
        try:
            init, task_inputs = inputs.make(module, seed, dtype, options, plan.device)
        except BaseException as exc:  # noqa: BLE001
            raise common.UserCodeError(errors.describe(exc, user_files, f"making the inputs (seed {seed})")) from None
        if inputs.fingerprint(init, task_inputs) != plan.fingerprints[i]:
            raise common.UserCodeError(
                errors.error_info(
                    "inputs",
                    protocol.INPUTS_DIFFER,
                    f"get_inputs() made other inputs for seed {seed} than in the reference job: "
                    "not reproducible from the seed",
                )
            )
        made.append((init, task_inputs))
    sys.modules.pop(module.__name__, None)  # the candidate cannot import the reference
    linecache.cache.pop(path, None)  # nor read its text where tracebacks would
    del module
    spec["options"].pop("make_inputs", None)  # nor find its text in the job's spec (gc.get_objects)
    return made


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict) -> tuple[dict, dict]:
    options = spec["options"]
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    started = time.perf_counter()
    per_seed = seed_inputs(spec, job_dir, user_files, given)
    stages = {"inputs_s": time.perf_counter() - started}
    recorder = hooks.LaunchRecorder(interpreter=backend.interpreter)
    recorder.install()
    reads = read_watch.ReadWatch(f"{job_dir}/candidate.py") if backend.interpreter else None
    if reads is not None:
        reads.install()
    trace = None
    if options.get("trace") and backend.interpreter:  # the first seed's forward, traced (explain_failure)
        trace = access_trace.AccessTrace(f"{job_dir}/candidate.py", [list(s) for s in options["trace"]])
        trace.install()
    nudge, launch_reads = None, None
    if options.get("provenance"):
        nudge = provenance.StoreNudge() if backend.interpreter else provenance.CompiledStoreNudge()
        nudge.install()
        launch_reads = provenance.LaunchReads()
        launch_reads.install(backend.interpreter)  # after the recorder: outside its launch guards
    monitor = hooks.ForwardMonitor(recorder, poison=options.get("poison", True), reads=reads)
    guard_fill = options.get("guard_fill", "nan")  # None: inputs as given, no margins
    monitor.guard_launch(guard_fill)
    t0 = time.perf_counter()
    model_cls = _import_candidate(job_dir, user_files)
    stages["import_s"] = time.perf_counter() - t0

    values, seeds_meta = {}, []
    meta = {"seeds": seeds_meta, "input_guard": guard_fill, "stages": stages}
    for i, seed in enumerate(spec["seeds"]):
        try:
            init, task_inputs = per_seed[i]
            out, info = _forward(
                model_cls,
                init,
                task_inputs,
                seed,
                backend.device,
                dtype,
                recorder,
                monitor,
                guard_fill,
                trace if i == 0 else None,
            )
        except BaseException as exc:  # noqa: BLE001
            error = errors.describe(exc, user_files, f"forward (seed {seed})")
            meta.update(_summary(recorder, monitor))
            raise common.UserCodeError(error | {"partial_meta": meta}) from None
        values[protocol.key(i, "actual")] = out
        values.update(info.pop("trace_values", {}))
        seeds_meta.append({"seed": seed, **info})

    if options.get("determinism", True) and spec["seeds"]:
        t0 = time.perf_counter()
        try:
            init, task_inputs = per_seed[0]
            again, _ = _forward(
                model_cls, init, task_inputs, spec["seeds"][0], backend.device, dtype, recorder, monitor, guard_fill
            )
            meta["determinism"] = _determinism(values[protocol.key(0, "actual")], again)
        except BaseException as exc:  # noqa: BLE001
            meta["determinism"] = {
                "checked": False,
                "error": errors.describe(exc, user_files, "determinism re-run")["message"],
            }
        stages["determinism_s"] = time.perf_counter() - t0
    meta.update(_summary(recorder, monitor))  # of the forwards the run is judged on: not the nudged one
    if nudge is not None and spec["seeds"]:
        t0 = time.perf_counter()
        run_again = functools.partial(_forward, model_cls, *per_seed[0], spec["seeds"][0], backend.device, dtype)
        sources = launch_reads.begin if launch_reads is not None else None
        forward = lambda around=None: run_again(recorder, monitor, guard_fill, around=around, sources=sources)[0]  # noqa: E731
        if launch_reads is not None:
            launch_reads.active = True
        try:
            if isinstance(nudge, provenance.CompiledStoreNudge):
                meta["provenance"], meta["device_time"] = _compiled_provenance(
                    nudge, forward, values, recorder, backend
                )
            else:
                meta["provenance"] = _provenance(nudge, forward, values)
        finally:
            if launch_reads is not None:
                launch_reads.active = False
        checked = isinstance(meta.get("provenance"), dict) and meta["provenance"].get("checked")
        if launch_reads is not None and checked:
            meta["provenance"] |= launch_reads.report()
        stages["provenance_s"] = time.perf_counter() - t0
    return meta, values


def _provenance(nudge: provenance.StoreNudge, forward, values: dict) -> dict:
    """The first seed's forward once more with the kernels' floating stores nudged (provenance.py)."""
    nudge.active, nudge.nudged_elements = True, 0
    try:
        nudged = forward()
    except BaseException as exc:  # noqa: BLE001 - not judged; the verdict stands on the other checks
        return {"checked": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    finally:
        nudge.active = False
    first = common.tree_tensors(values[protocol.key(0, "actual")])
    return {
        "checked": True,
        "nudged_elements": nudge.nudged_elements,
        "outputs": provenance.unchanged_elements(first, common.tree_tensors(nudged)),
    }


def _compiled_provenance(nudge: provenance.CompiledStoreNudge, forward, values: dict, recorder, backend):
    """The nudged forward on a device (kernels compiled again with nudged stores), timed by the profiler
    on cuda: (provenance report, device-time report)."""
    if nudge.unsupported:
        return {"checked": False, "error": nudge.unsupported}, None
    hooked = recorder.hook_launches
    nudge.begin()
    try:
        profile = device_time.DeviceProfile(set(recorder.kernels)) if backend.device == "cuda" else None
        nudged = forward(around=profile)
        device = profile.report if profile is not None else None
        common.synchronize(backend.device)
    except BaseException as exc:  # noqa: BLE001 - not judged; the verdict stands on the other checks
        return {"checked": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}, None
    finally:
        nudge.end()
    if recorder.hook_launches - hooked > nudge.launches:
        note = "some launches bypassed JITFunction.run (precompiled kernel objects): they cannot be nudged"
        return {"checked": False, "error": note}, device
    first = [common.to_cpu(t) for t in common.tree_tensors(values[protocol.key(0, "actual")])]
    report = {
        "checked": True,
        "nudged_sites": nudge.nudged_sites,
        "outputs": provenance.unchanged_elements(first, [common.to_cpu(t) for t in common.tree_tensors(nudged)]),
    }
    return report, device


def _summary(recorder, monitor) -> dict:
    return {
        "launches": recorder.total,
        "kernels": dict(recorder.kernels),
        "poisoned_allocations": monitor.poisoned,
        "torch_calls": dict(monitor.calls.most_common(hooks.MAX_RECORDED_CALLS)),
    }
