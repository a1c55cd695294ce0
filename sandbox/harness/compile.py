"""Job kind `compile`: does the candidate import and compile, and what do its kernels cost?

1. Import the candidate (syntax and import errors, mapped to its lines).
2. With a reference, run one forward on the first seed's inputs: Triton compiles (GPU) or
   interprets (CPU) every kernel it launches; errors map to the candidate's lines.
3. Per launched kernel:
   - compiled (GPU): name, registers, spills, shared memory, num_warps, num_stages of the loaded
     binary;
   - interpreter (CPU): the interpreter runs Python the real compiler rejects (break, plain
     globals, type-changing loop variables, tl.dot on tiles < 16, ...), so each launched
     signature is recorded here and compiled for sm_90 by an `offline_compile` job
     (sandbox/harness/offline.py) in a process that never ran the interpreter.
"""

from __future__ import annotations

import inspect
import time

import torch

from sandbox import protocol
from sandbox.harness import candidate as candidate_job
from sandbox.harness import common, errors, hooks

_OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def _jit_of(obj):
    """The JITFunction behind a kernel object (InterpretedFunction, Autotuner, Heuristics)."""
    from triton.runtime.jit import JITFunction

    seen = 0
    while not isinstance(obj, JITFunction) and seen < 8:
        seen += 1
        if type(obj).__name__ == "InterpretedFunction":
            return JITFunction(obj.fn)
        obj = getattr(obj, "fn", None)
        if obj is None:
            return None
    return obj


def kernels_in(module) -> list[str]:
    names = []
    for name, obj in vars(module).items():
        if type(obj).__name__ in ("JITFunction", "InterpretedFunction", "Autotuner", "Heuristics"):
            names.append(name)
    return names


def _signature(jit, args, kwargs):
    from triton.runtime.jit import mangle_type

    params = {p.name: p for p in jit.params}
    bound = inspect.signature(jit.fn).bind_partial(*args, **{k: v for k, v in kwargs.items() if k in params})
    bound.apply_defaults()
    signature, constexprs = {}, {}
    for name, p in params.items():
        value = bound.arguments.get(name)
        if p.is_constexpr or value is None or isinstance(value, str):
            signature[name] = "constexpr"
            constexprs[name] = value
        else:
            signature[name] = mangle_type(value)
    options = {k: kwargs[k] for k in _OPTION_KEYS if k in kwargs}
    return signature, constexprs, options


def _encode_constexpr(value):
    import triton.language as tl

    if isinstance(value, tl.dtype):
        return {"triton_dtype": str(value)}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"constexpr of type {type(value).__name__} cannot be compiled offline")


def _launch_record(name, jit, args, kwargs) -> dict:
    """A launched kernel's signature, in JSON, for the offline compile job."""
    try:
        signature, constexprs, options = _signature(jit, args, kwargs)
        return {
            "kernel": name,
            "signature": signature,
            "options": options,
            "constexprs": {k: _encode_constexpr(v) for k, v in constexprs.items()},
        }
    except Exception as exc:  # noqa: BLE001
        return {"kernel": name, "unsupported": f"{type(exc).__name__}: {exc}"}


def _gpu_stats(recorder) -> list[dict]:
    """Metadata of every kernel binary the forward loaded (compiled mode)."""
    out = []
    for name, (jit, _args, _kwargs) in recorder.first_launch.items():
        caches = getattr(jit, "device_caches", {}) or {}
        for device_cache in caches.values():
            kernel_cache = device_cache[0] if isinstance(device_cache, tuple) else device_cache
            for kernel in list(getattr(kernel_cache, "values", lambda: [])()):
                md = getattr(kernel, "metadata", None)
                out.append(
                    {
                        "name": getattr(md, "name", name) if md is not None else name,
                        "target": "device",
                        "compiled": True,
                        "registers": getattr(kernel, "n_regs", None),
                        "spills": getattr(kernel, "n_spills", None),
                        "shared_memory": getattr(md, "shared", None),
                        "num_warps": getattr(md, "num_warps", None),
                        "num_stages": getattr(md, "num_stages", None),
                    }
                )
    return out


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict) -> tuple[dict, dict]:
    options = spec["options"]
    recorder = hooks.LaunchRecorder(interpreter=backend.interpreter)
    recorder.keep_launch_args = True
    recorder.install()
    monitor = hooks.ForwardMonitor(recorder, poison=True)
    launching = bool(given) or protocol.InputPlan.from_options(options) is not None
    per_seed = candidate_job.seed_inputs(spec, job_dir, user_files, given) if launching else []
    start = time.perf_counter()
    model_cls = candidate_job._import_candidate(job_dir, user_files)
    module = __import__("sys").modules["candidate"]
    meta = {"kernels_defined": kernels_in(module), "import_s": time.perf_counter() - start, "kernels": []}
    if not launching:
        meta["launched"] = False
        return meta, {}
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    try:
        init, task_inputs = per_seed[0]
        _out, info = candidate_job._forward(
            model_cls,
            init,
            task_inputs,
            spec["seeds"][0],
            backend.device,
            dtype,
            recorder,
            monitor,
            guard_fill="nan",
        )
    except BaseException as exc:  # noqa: BLE001
        raise common.UserCodeError(errors.describe(exc, user_files, "first launch") | {"partial_meta": meta}) from None
    meta.update(launched=True, launches=recorder.total, forward_s=info["forward_s"])
    if backend.interpreter:  # compiled by an `offline_compile` job on the compiler zygote
        meta["launches"] = [
            _launch_record(name, _jit_of(jit), args, kwargs)
            for name, (jit, args, kwargs) in recorder.first_launch.items()
        ]
    else:
        meta["kernels"] = _gpu_stats(recorder)
    return meta, {}
