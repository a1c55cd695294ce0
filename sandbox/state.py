"""Where the server's state lives: $KERNEL_EVAL_HOME, else $XDG_CACHE_HOME/kernel-eval (~/.cache/kernel-eval).

Its own small module so that light callers (a CLI talking to the daemon) need not import torch.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_state_dir() -> Path:
    home = os.environ.get("KERNEL_EVAL_HOME")
    if home:
        return Path(home)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "kernel-eval"
