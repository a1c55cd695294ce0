"""Per-task pools of secret seeds.

Each call draws its seeds at random from the task's pool, so a candidate cannot predict them,
while the goldens of pool seeds are computed once and cached. Seeds a user pins are kept apart:
their goldens are cached like any other (by task and seed), but they never join the secret pool,
and new secret seeds are never one a caller pinned. So the pool always holds POOL_SIZE seeds
nobody chose. (Re-running a run's own secret seeds, as suggest_fix's verification does, pins
seeds already in the pool: they stay there.)

The pool file is shared by every server on the same home: reads and writes hold its lock, and it
is replaced atomically.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from tools.store.files import locked, write_atomic

POOL_SIZE = 16
#: pinned seeds remembered per task (to keep them out of the secret pool)
MAX_PINNED = 4096
_random = secrets.SystemRandom()


class SeedPool:
    def __init__(self, root: Path):
        self.root = root / "seeds"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _load(self, key: str) -> tuple[list[int], list[int]]:
        """(secret, pinned); a missing or unreadable file (or the old list format, which mixed
        pinned seeds in) reads as an empty pool."""
        try:
            data = json.loads(self._path(key).read_text())
            return [int(s) for s in data["secret"]], [int(s) for s in data["pinned"]]
        except (OSError, ValueError, TypeError, KeyError):
            return [], []

    def _save(self, key: str, secret: list[int], pinned: list[int]) -> None:
        write_atomic(self._path(key), json.dumps({"secret": secret, "pinned": pinned[-MAX_PINNED:]}).encode())

    def _lock(self, key: str):
        return locked(self.root / f"{key}.lock")

    def draw(self, key: str, count: int, ready=None) -> list[int]:
        """`count` distinct seeds drawn from the task's secret pool (grown to hold them). `ready(seed)`:
        whether a seed's golden is cached; while the pool's goldens are still being computed, the
        draw is among the ready seeds when there are enough of them (they are as secret as the
        others), so a call need not wait for a golden."""
        with self._lock(key):
            secret, pinned = self._load(key)
            taken = set(pinned)
            grown = False
            while len(secret) < max(POOL_SIZE, count):
                seed = secrets.randbelow(2**31 - 1) + 1
                if seed not in taken and seed not in secret:
                    secret.append(seed)
                    grown = True
            if grown:
                self._save(key, secret, pinned)
        candidates = [s for s in secret if ready(s)] if ready is not None else secret
        return _random.sample(candidates if len(candidates) >= count else secret, count)

    def pin(self, key: str, seeds: list[int]) -> None:
        """Record seeds a caller chose: never drawn as secret seeds from now on."""
        with self._lock(key):
            secret, pinned = self._load(key)
            new = [s for s in dict.fromkeys(seeds) if s not in pinned and s not in secret]
            if new:
                self._save(key, secret, pinned + new)

    def secret(self, key: str) -> list[int]:
        return self._load(key)[0]
