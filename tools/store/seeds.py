"""Per-task pools of secret seeds.

Each call draws its seeds at random from the task's pool, so a candidate cannot predict them,
while the goldens of pool seeds are computed once and cached. Seeds a user pins join the pool.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from pathlib import Path

POOL_SIZE = 16
_random = secrets.SystemRandom()


class SeedPool:
    def __init__(self, root: Path):
        self.root = root / "seeds"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock = threading.Lock()

    def _load(self, key: str) -> list[int]:
        try:
            seeds = json.loads((self.root / f"{key}.json").read_text())
            return [int(s) for s in seeds]
        except (OSError, ValueError, TypeError):
            return []

    def _save(self, key: str, seeds: list[int]) -> None:
        path = self.root / f"{key}.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(seeds, f)

    def draw(self, key: str, count: int) -> list[int]:
        with self._lock:
            pool = self._load(key)
            while len(pool) < max(POOL_SIZE, count):
                seed = secrets.randbelow(2**31 - 1) + 1
                if seed not in pool:
                    pool.append(seed)
            self._save(key, pool)
            return _random.sample(pool, count)

    def add(self, key: str, seeds: list[int]) -> None:
        with self._lock:
            pool = self._load(key)
            pool.extend(s for s in seeds if s not in pool)
            self._save(key, pool)
