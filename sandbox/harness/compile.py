"""Job kind `compile`: does the candidate import and compile, and what do its kernels cost?

1. Import the candidate (syntax and import errors, mapped to its lines).
2. With a reference, run one forward on the first seed's inputs: Triton compiles (GPU) or
   interprets (CPU) every kernel it launches; errors map to the candidate's lines.
3. Per launched kernel:
   - compiled (GPU): name, registers, spills, shared memory, num_warps, num_stages of the loaded
     binary;
   - interpreter (CPU): the interpreter runs Python the real compiler rejects (break, plain
     globals, type-changing loop variables, tl.dot on tiles < 16, ...), so the launched
     signature also goes through Triton's real front end for a CUDA target (sm_90), offline;
     with `estimate_resources`, the whole pipeline down to ptxas, for sm_90 estimates.
"""

from __future__ import annotations

import inspect
import re
import time

import torch

from sandbox.harness import candidate as candidate_job
from sandbox.harness import common, errors, hooks

OFFLINE_TARGET = ("cuda", 90, 32)
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


def _ptxas_stats(ptx: str, capability: int) -> dict:
    import os
    import subprocess
    import tempfile

    from triton.backends.nvidia.compiler import get_ptxas, sm_arch_from_capability

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        done = subprocess.run(
            [get_ptxas(capability).path, "-v", f"--gpu-name={sm_arch_from_capability(capability)}", path, "-o", os.path.join(d, "k.o")],
            capture_output=True, text=True, timeout=120,
        )
    log = done.stderr

    def grab(pattern):
        m = re.search(pattern, log)
        return int(m.group(1)) if m else None

    return {"registers": grab(r"Used (\d+) registers"), "spill_stores": grab(r"(\d+) bytes spill stores"),
            "spill_loads": grab(r"(\d+) bytes spill loads")}


def _offline_check(name, jit, args, kwargs, user_files, full: bool, module_jits) -> dict:
    """Compile one launched signature with Triton's real compiler for sm_90, without a GPU."""
    import triton
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.compiler import make_backend

    entry = {"name": name, "target": "sm_90 (offline estimate)", "compiled": False}
    start = time.perf_counter()
    try:
        signature, constexprs, options = _signature(jit, args, kwargs)
        src = ASTSource(jit, signature=signature, constexprs=constexprs)
        target = GPUTarget(*OFFLINE_TARGET)
        if full:
            kernel = triton.compile(src, target=target, options=options)
            stats = _ptxas_stats(kernel.asm["ptx"], OFFLINE_TARGET[1])
            entry.update(
                registers=stats["registers"],
                spills=(stats["spill_stores"] or 0) + (stats["spill_loads"] or 0),
                shared_memory=kernel.metadata.shared,
                num_warps=kernel.metadata.num_warps,
                num_stages=kernel.metadata.num_stages,
            )
        else:
            backend = make_backend(target)
            opts = backend.parse_options(dict(options))
            context = ir.context()
            ir.load_dialects(context)
            backend.load_dialects(context)
            src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), context)
            entry.update(num_warps=opts.num_warps, num_stages=opts.num_stages)
        entry["compiled"] = True
    except BaseException as exc:  # noqa: BLE001
        entry["error"] = errors.describe(exc, user_files, f"compile {name} for sm_90", [jit, *module_jits])
    entry["compile_s"] = time.perf_counter() - start
    return entry


def _gpu_stats(recorder) -> list[dict]:
    """Metadata of every kernel binary the forward loaded (compiled mode)."""
    out = []
    for name, (jit, _args, _kwargs) in recorder.first_launch.items():
        caches = getattr(jit, "device_caches", {}) or {}
        for device_cache in caches.values():
            kernel_cache = device_cache[0] if isinstance(device_cache, tuple) else device_cache
            for kernel in list(getattr(kernel_cache, "values", lambda: [])()):
                md = getattr(kernel, "metadata", None)
                out.append({
                    "name": getattr(md, "name", name) if md is not None else name,
                    "target": "device",
                    "compiled": True,
                    "registers": getattr(kernel, "n_regs", None),
                    "spills": getattr(kernel, "n_spills", None),
                    "shared_memory": getattr(md, "shared", None),
                    "num_warps": getattr(md, "num_warps", None),
                    "num_stages": getattr(md, "num_stages", None),
                })
    return out


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict) -> tuple[dict, dict]:
    options = spec["options"]
    recorder = hooks.LaunchRecorder(interpreter=backend.interpreter)
    recorder.keep_launch_args = True
    recorder.install()
    monitor = hooks.ForwardMonitor(recorder, poison=True)
    start = time.perf_counter()
    model_cls = candidate_job._import_candidate(job_dir, user_files, recorder)
    module = __import__("sys").modules["candidate"]
    meta = {"kernels_defined": kernels_in(module), "import_s": time.perf_counter() - start, "kernels": []}
    if not given:
        meta["launched"] = False
        return meta, {}
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    try:
        _out, info = candidate_job._forward(model_cls, given["s0/init"], given["s0/inputs"], spec["seeds"][0],
                                            backend.device, dtype, recorder, monitor)
    except BaseException as exc:  # noqa: BLE001
        raise common.UserCodeError(errors.describe(exc, user_files, "first launch") | {"partial_meta": meta}) from None
    meta.update(launched=True, launches=recorder.total, forward_s=info["forward_s"],
                bf16_in_interpreter=recorder.bf16_in_interpreter)
    if backend.interpreter:
        full = bool(options.get("estimate_resources"))
        module_jits = [j for n in meta["kernels_defined"] if (j := _jit_of(getattr(module, n))) is not None]
        meta["kernels"] = [
            _offline_check(name, _jit_of(jit), args, kwargs, user_files, full, module_jits)
            for name, (jit, args, kwargs) in recorder.first_launch.items()
        ]
    else:
        meta["kernels"] = _gpu_stats(recorder)
    return meta, {}
