"""Job kind `reference`: per seed, the inputs, the FP64 golden and the CPU same-precision control.

The reference is untrusted too (an agent may have written it), so it runs sandboxed like the
candidate, in its own process: the candidate's process never holds the golden.
"""

from __future__ import annotations

import copy
import time

import torch

from sandbox.harness import common, errors, inputs


def _golden_device(backend) -> str:
    if backend.golden_on_device and backend.device == "cuda" and torch.cuda.is_available():
        return "cuda"
    return "cpu"


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict | None = None) -> tuple[dict, dict]:
    """`given` (explain_failure's experiments): per seed `s{i}/inputs` (and `s{i}/init`) to use
    instead of making them; the golden and the CPU control are computed on exactly those."""
    given = given or {}
    options = spec["options"]
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    path = f"{job_dir}/reference.py"
    try:
        module = common.load_module(path, "reference")
        for attr in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(module, attr):
                raise AttributeError(
                    f"the reference defines no `{attr}` (KernelBench format: class Model, get_inputs(), get_init_inputs())"
                )
    except BaseException as exc:  # noqa: BLE001 - SystemExit in user code too
        raise common.UserCodeError(errors.describe(exc, user_files, "reference import")) from None

    golden_device = _golden_device(backend)
    values, seeds_meta = {}, []
    for i, seed in enumerate(spec["seeds"]):
        stamps = {}
        start = time.perf_counter()
        try:
            common.seed_all(seed)
            init = list(given[f"s{i}/init"]) if f"s{i}/init" in given else list(module.get_init_inputs())
            if f"s{i}/inputs" in given:
                task_inputs = list(given[f"s{i}/inputs"])
            else:
                common.seed_all(seed)
                raw = list(module.get_inputs())
                task_inputs = inputs.transform(
                    raw, seed, dtype, options.get("value_range"), options.get("profile", "task")
                )
            common.seed_all(seed)
            model = common.cast_model(module.Model(*init), dtype).eval()
            stamps["inputs_s"] = time.perf_counter() - start

            t0 = time.perf_counter()
            try:  # some CPU ops lack a kernel for the dtype: judge without the control then
                with torch.device("cpu"), torch.no_grad():
                    cpu_out = common.to_cpu(model(*common.clone(task_inputs)))
            except Exception as exc:  # noqa: BLE001
                cpu_out = None
                stamps["cpu_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            stamps["cpu_control_s"] = time.perf_counter() - t0

            t0 = time.perf_counter()
            model64 = copy.deepcopy(model).to(torch.float64).to(golden_device)
            with torch.device(golden_device), torch.no_grad():  # factories without device= land by the inputs
                golden = model64(*common.to_device(common.upcast64(task_inputs), golden_device))
            common.synchronize(golden_device)
            golden = common.to_cpu(golden)
            stamps["golden_s"] = time.perf_counter() - t0
        except BaseException as exc:  # noqa: BLE001
            info = errors.describe(exc, user_files, f"reference forward (seed {seed})")
            raise common.UserCodeError(info) from None
        values[f"s{i}/init"] = init
        values[f"s{i}/inputs"] = task_inputs
        values[f"s{i}/golden"] = golden
        values[f"s{i}/cpu"] = cpu_out
        seeds_meta.append({"seed": seed, **stamps})
    return {"golden_device": golden_device, "seeds": seeds_meta}, values
