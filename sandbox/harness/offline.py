"""Job kind `offline_compile`: compile recorded launch signatures for sm_90, without a GPU.

Runs on the `compiler` zygote, which never runs the Triton interpreter (in Triton 3.9 an
interpreted launch leaves state that breaks later real compiles in the same process). The
interpreter job records each launched kernel's signature; here the candidate is imported with
the interpreter off and each signature goes through Triton's real compiler: the front end (the
code generator, where unsupported Python is rejected) or, with estimate_resources, the whole
pipeline down to ptxas for register / spill / shared-memory estimates.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from sandbox.harness import common, errors, interpreter_compat

OFFLINE_TARGET = ("cuda", 90, 32)
TARGET_NAME = "sm_90 (offline estimate)"


def decode_constexpr(value):
    """Launch constexprs travel as JSON; Triton dtypes as {"triton_dtype": "fp16"}."""
    if isinstance(value, dict) and "triton_dtype" in value:
        import triton.language as tl

        return tl.dtype(value["triton_dtype"])
    return value


def _ptxas_stats(ptx: str, capability: int) -> dict:
    from triton.backends.nvidia.compiler import get_ptxas, sm_arch_from_capability

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "k.ptx"
        path.write_text(ptx)
        done = subprocess.run(
            [
                get_ptxas(capability).path,
                "-v",
                f"--gpu-name={sm_arch_from_capability(capability)}",
                str(path),
                "-o",
                str(Path(d) / "k.o"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )

    def grab(pattern):
        m = re.search(pattern, done.stderr)
        return int(m.group(1)) if m else None

    stores, loads = grab(r"(\d+) bytes spill stores"), grab(r"(\d+) bytes spill loads")
    return {"registers": grab(r"Used (\d+) registers"), "spills": (stores or 0) + (loads or 0)}


def _compile(jit, launch: dict, full: bool) -> dict:
    import triton
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.compiler import make_backend

    constexprs = {k: decode_constexpr(v) for k, v in launch["constexprs"].items()}
    src = ASTSource(jit, signature=launch["signature"], constexprs=constexprs)
    target = GPUTarget(*OFFLINE_TARGET)
    if full:
        kernel = triton.compile(src, target=target, options=launch["options"])
        stats = _ptxas_stats(kernel.asm["ptx"], OFFLINE_TARGET[1])
        return {
            **stats,
            "shared_memory": kernel.metadata.shared,
            "num_warps": kernel.metadata.num_warps,
            "num_stages": kernel.metadata.num_stages,
        }
    backend: Any = make_backend(target)  # a CUDABackend: its codegen and options are not on BaseBackend
    options = backend.parse_options(dict(launch["options"]))
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(), context)
    return {"num_warps": options.num_warps, "num_stages": options.num_stages}


def _jit_functions(module) -> dict:
    from triton.runtime.jit import JITFunction

    found = {}
    for obj in vars(module).values():
        inner, depth = obj, 0
        while not isinstance(inner, JITFunction) and hasattr(inner, "fn") and depth < 8:
            inner, depth = inner.fn, depth + 1
        if isinstance(inner, JITFunction):
            found[inner.fn.__name__] = inner
    return found


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict) -> tuple[dict, dict]:
    path = f"{job_dir}/candidate.py"
    interpreter_compat.install_cpu_driver()  # no GPU here: `driver.active` at import answers as on the cpu backend
    try:
        module = common.load_module(path, "candidate")
    except BaseException as exc:  # noqa: BLE001
        raise common.UserCodeError(errors.describe(exc, user_files, "import (offline compile)")) from None
    jits = _jit_functions(module)
    full = bool(spec["options"].get("estimate_resources"))
    kernels = []
    for launch in spec["options"]["launches"]:
        name = launch["kernel"]
        entry = {"name": name, "target": TARGET_NAME, "compiled": False}
        start = time.perf_counter()
        jit = jits.get(name)
        if jit is None:
            entry["error"] = errors.error_info(
                f"compile {name} for sm_90",
                "NotFound",
                f"kernel {name} is not defined at module level: it cannot be compiled offline",
            )
        else:
            try:
                entry.update(_compile(jit, launch, full))
                entry["compiled"] = True
            except BaseException as exc:  # noqa: BLE001
                entry["error"] = errors.describe(exc, user_files, f"compile {name} for sm_90", list(jits.values()))
        entry["compile_s"] = time.perf_counter() - start
        kernels.append(entry)
    return {"kernels": kernels}, {}
