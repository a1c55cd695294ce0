"""Job kind `reference`: per seed, the FP64 golden and the CPU same-precision control.

The reference is untrusted too (an agent may have written it), so it runs sandboxed like the
candidate, in its own process: the candidate's process never holds the golden.

Each seed's inputs are made here from the seed, on the device where the candidate will run
(options["inputs_device"]; on the CPU where get_inputs cannot run there), and fingerprinted: the
candidate job makes the same inputs itself and proves it by the fingerprint, so inputs travel as
files only when asked (options["return_inputs"]) or when explain_failure gives altered ones.
"""

from __future__ import annotations

import copy
import time

import torch

from sandbox import protocol
from sandbox.harness import common, errors, inputs, perturb


def _golden_device(backend) -> str:
    if backend.golden_on_device and backend.device == "cuda" and torch.cuda.is_available():
        return "cuda"
    return "cpu"


def load_reference(job_dir: str, user_files: dict):
    return _checked(lambda: common.load_module(f"{job_dir}/reference.py", "reference"), user_files)


def load_reference_source(text: str, path: str, user_files: dict):
    """The reference from its source text, as a module nobody can import (see InputPlan)."""
    return _checked(lambda: common.module_from_source(text, path, "_reference"), user_files)


def _checked(load, user_files: dict):
    try:
        module = load()
        for attr in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(module, attr):
                raise AttributeError(
                    f"the reference defines no `{attr}` "
                    "(KernelBench format: class Model, get_inputs(), get_init_inputs())"
                )
    except BaseException as exc:  # noqa: BLE001 - SystemExit in user code too
        raise common.UserCodeError(errors.describe(exc, user_files, "reference import")) from None
    return module


def _seed_inputs(module, index: int, seed: int, dtype, options: dict, given: dict) -> tuple[list, list, str]:
    if protocol.key(index, "inputs") in given:
        init = protocol.seed_part(given, index, "init")
        if init is None:
            common.seed_all(seed)
            init = list(module.get_init_inputs())
        return list(init), list(protocol.seed_part(given, index, "inputs")), "given"
    return inputs.make_where_possible(module, seed, dtype, options, options.get("inputs_device", "cpu"))


def _cpu_control(model, task_inputs, stamps: dict):
    """The same op in the same precision on the CPU; some CPU ops lack a kernel for the dtype:
    judged without the control then (stamps["cpu_error"] says why)."""
    try:
        with torch.device("cpu"), torch.no_grad():
            return common.to_cpu(model(*common.host_copy(task_inputs)))
    except Exception as exc:  # noqa: BLE001
        stamps["cpu_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        return None


def _golden(model, task_inputs, golden_device: str):
    """The reference in float64 on `golden_device`; on the CPU where the device has no kernel for an op
    in that dtype (CUDA has no integer matmul: "addmm_cuda" not implemented for 'Int')."""
    try:
        return _golden_on(model, task_inputs, golden_device)
    except (NotImplementedError, RuntimeError) as exc:
        if golden_device == "cpu" or "not implemented for" not in str(exc):
            raise
        return _golden_on(model, task_inputs, "cpu")


def _golden_on(model, task_inputs, device: str):
    model64 = copy.deepcopy(model).to(torch.float64).to(device)
    with torch.device(device), torch.no_grad():  # factories without device= land by the inputs
        golden = model64(*common.to_device(common.upcast64(task_inputs), device))
    common.synchronize(device)
    return common.to_cpu(golden)


#: Per sampled output element and input: at most this many elements it depends on are returned.
MAX_DEPENDENCIES = 8192


def _dependencies(model, task_inputs, samples: list[list[int]]) -> tuple[list[dict], dict]:
    """Which elements of each floating input each sampled output element ([output position, flat
    index]) depends on: the nonzero entries of its gradient, in float64 on the CPU (autograd; a
    nonzero derivative is a dependency, a zero one proves nothing). For explain_failure's access trace."""
    model64 = copy.deepcopy(model).to(torch.float64).to("cpu")
    leaves = [
        t.detach().to("cpu", torch.float64) if t.is_floating_point() else t.detach().to("cpu")
        for t in common.tree_tensors(common.to_cpu(task_inputs))
    ]
    floating = [i for i, t in enumerate(leaves) if t.is_floating_point()]
    for i in floating:
        leaves[i].requires_grad_(True)
    position = iter(range(len(leaves)))
    rebuilt = common.tree_map(lambda _t: leaves[next(position)], task_inputs)
    with torch.device("cpu"), torch.enable_grad():
        outputs = common.tree_tensors(model64(*rebuilt))
    entries, values = [], {}
    for number, (output, flat) in enumerate(samples):
        entry: dict = {"output": output, "index": flat, "inputs": []}
        entries.append(entry)
        if not (0 <= output < len(outputs)) or not (0 <= flat < outputs[output].numel()):
            entry["status"] = "no such element"
            continue
        if not outputs[output].requires_grad or not floating:
            entry["status"] = "not differentiable"
            continue
        grads = torch.autograd.grad(
            outputs[output].reshape(-1)[flat], [leaves[i] for i in floating], retain_graph=True, allow_unused=True
        )
        entry["status"] = "ok"
        for i, grad in zip(floating, grads, strict=True):
            if grad is None:
                continue
            needed = torch.nonzero(grad.reshape(-1) != 0).reshape(-1)
            name = f"deps/{number}/{i}"
            entry["inputs"].append({"input": i, "count": int(needed.numel()), "key": name})
            values[name] = needed[:MAX_DEPENDENCIES].clone()
    _perturbed_dependencies(model, task_inputs, samples, entries, values)
    return entries, values


def _perturbed_dependencies(model, task_inputs, samples: list[list[int]], entries: list[dict], values: dict) -> None:
    """The integer inputs' part, which no gradient gives: by perturbation (sandbox.harness.perturb)."""
    valid = [n for n, e in enumerate(entries) if e.get("status") != "no such element"]
    found = perturb.dependencies(model, task_inputs, [(samples[n][0], samples[n][1]) for n in valid])
    for i, per_sample in found.items():
        for n, needed in zip(valid, per_sample, strict=True):
            if not needed:
                continue
            name = f"deps/{n}/{i}"
            entries[n]["inputs"].append({"input": i, "count": len(needed), "key": name, "by": "perturbation"})
            entries[n]["status"] = "ok"
            values[name] = torch.tensor(needed, dtype=torch.int64)


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict | None = None) -> tuple[dict, dict]:
    """`given` (explain_failure's experiments): per seed `s{i}/inputs` (and `s{i}/init`) to use
    instead of making them; the golden and the CPU control are computed on exactly those."""
    given = given or {}
    options = spec["options"]
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    if options.get("cpu_threads"):
        torch.set_num_threads(int(options["cpu_threads"]))
    module = load_reference(job_dir, user_files)
    golden_device = _golden_device(backend)
    parts = options.get("parts", "all")  # all | golden | cpu (the server runs the two apart)
    values, seeds_meta = {}, []
    for i, seed in enumerate(spec["seeds"]):
        stamps: dict = {}
        start = time.perf_counter()
        try:
            init, task_inputs, made_on = _seed_inputs(module, i, seed, dtype, options, given)
            stamps["fingerprint"] = inputs.fingerprint(init, task_inputs)
            stamps["inputs_device"] = made_on
            common.seed_all(seed)
            model = common.cast_model(module.Model(*init), dtype).eval()
            stamps["inputs_s"] = time.perf_counter() - start

            cpu_out = golden = None
            if parts in ("all", "cpu"):
                t0 = time.perf_counter()
                cpu_out = _cpu_control(model, task_inputs, stamps)
                stamps["cpu_control_s"] = time.perf_counter() - t0
            if parts in ("all", "golden"):
                t0 = time.perf_counter()
                golden = _golden(model, task_inputs, golden_device)
                stamps["golden_s"] = time.perf_counter() - t0
        except BaseException as exc:  # noqa: BLE001
            info = errors.describe(exc, user_files, f"reference forward (seed {seed})")
            raise common.UserCodeError(info) from None
        if i == 0 and options.get("dependencies"):
            try:
                meta_deps, dep_values = _dependencies(model, task_inputs, options["dependencies"])
            except Exception as exc:  # noqa: BLE001 - a reference autograd cannot follow: no dependencies
                meta_deps, dep_values = [{"status": f"{type(exc).__name__}: {str(exc)[:200]}"}], {}
            stamps["dependencies"] = meta_deps
            values.update(dep_values)
        values[protocol.key(i, "init")] = init
        if options.get("return_inputs") or made_on == "given":
            values[protocol.key(i, "inputs")] = common.to_cpu(task_inputs)
        values[protocol.key(i, "golden")] = golden
        values[protocol.key(i, "cpu")] = cpu_out
        seeds_meta.append({"seed": seed, **stamps})
    return {"golden_device": golden_device, "seeds": seeds_meta}, values
