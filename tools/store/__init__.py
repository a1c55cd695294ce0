"""Where the server keeps state: $KERNEL_EVAL_HOME (default ~/.cache/kernel-eval).

golden/<task key>/<seed>.bin   inputs, FP64 golden and CPU control per seed (bounded, LRU)
seeds/<task key>.json          the task's pool of secret seeds
runs/<run id>/                 result.json, task.json, tensors.bin (for explain_failure)
sandbox-<backend>/             the zygote's state and job directories
"""

from __future__ import annotations

from pathlib import Path

from sandbox.state import default_state_dir


def home() -> Path:
    path = default_state_dir()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
