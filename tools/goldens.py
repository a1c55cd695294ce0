"""The golden step: inputs, FP64 golden and CPU control per seed, from the cache or a reference job."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sandbox.pool import JobRequest
from tools import faults
from tools.errors import ToolInputError
from tools.services import Services
from tools.store.golden import PARTS, task_key


@dataclass
class Goldens:
    key: str
    per_seed: dict[int, dict]  # seed -> {"init", "inputs", "golden", "cpu"}
    seconds: float
    cached: bool
    golden_device: str
    cpu_missing: list[int]


def input_options(dtype, value_range, profile) -> dict:
    return {"dtype": dtype, "value_range": list(value_range) if value_range else None, "profile": profile}


def key_for(reference_text: str, options: dict, backend) -> str:
    golden_device = "cuda" if backend.golden_on_device else "cpu"
    return task_key(reference_text, options, golden_device)


def ensure(
    services: Services,
    backend,
    reference_text: str,
    reference_name: str,
    options: dict,
    seeds: list[int],
    timeout_s: float,
    memory_mb: int,
    cancel: threading.Event | None,
) -> Goldens:
    key = key_for(reference_text, options, backend)
    per_seed = {s: v for s in seeds if (v := services.goldens.get(key, s)) is not None}
    missing = [s for s in seeds if s not in per_seed]
    golden_device = "cuda" if backend.golden_on_device else "cpu"
    if not missing:
        return _goldens(key, seeds, per_seed, 0.0, True, golden_device)
    with services.goldens.computing(key, missing, cancel):  # across processes: each golden once
        per_seed |= {s: v for s in missing if (v := services.goldens.get(key, s)) is not None}
        missing = [s for s in seeds if s not in per_seed]
        seconds, golden_device = _compute(
            services,
            backend,
            key,
            reference_text,
            reference_name,
            options,
            missing,
            timeout_s,
            memory_mb,
            cancel,
            per_seed,
            golden_device,
        )
    return _goldens(key, seeds, per_seed, seconds, not missing, golden_device)


def _goldens(key, seeds, per_seed, seconds, cached, golden_device) -> Goldens:
    cpu_missing = [s for s in seeds if per_seed[s].get("cpu") is None]
    return Goldens(key, per_seed, seconds, cached, golden_device, cpu_missing)


def _compute(
    services,
    backend,
    key,
    reference_text,
    reference_name,
    options,
    missing,
    timeout_s,
    memory_mb,
    cancel,
    per_seed,
    golden_device,
) -> tuple[float, str]:
    """Run the reference on the missing seeds; store and add their goldens to per_seed."""
    seconds = 0.0
    if missing:
        job = services.pool(backend).run(
            JobRequest(
                "reference",
                {"reference.py": reference_text},
                {"reference.py": reference_name},
                missing,
                options,
                memory_mb=memory_mb,
            ),
            timeout_s,
            cancel,
        )
        fault = faults.process_fault(job, timeout_s, "reference")
        if fault is not None:
            raise ToolInputError(f"the reference could not run: {fault[1].message}", {"error": fault[1].model_dump()})
        if job.meta.get("status") != "ok":
            _, error = faults.user_error(job.meta.get("error", {}))
            raise ToolInputError(
                f"the reference failed in {error.phase}{error.where}: {error.type}: {error.message}",
                {"error": error.model_dump()},
            )
        golden_device = job.meta.get("golden_device", golden_device)
        for i, seed in enumerate(missing):
            values = {part: job.values.get(f"s{i}/{part}") for part in PARTS}
            services.goldens.put(key, seed, values)
            per_seed[seed] = values
        seconds = job.wall_s
    return seconds, golden_device
