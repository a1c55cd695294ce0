"""Work a call leaves running after it returns (the run store's tensors), tracked so a process that is
about to exit can wait for it first: once the main thread returns, Python refuses new thread-pool work
("cannot schedule new futures after shutdown"), so a CLI process must wait before it returns, not after."""

from __future__ import annotations

import threading

_running: set[threading.Thread] = set()
_lock = threading.Lock()


def start(name: str, target, *args) -> threading.Thread:
    def run() -> None:
        try:
            target(*args)
        finally:
            with _lock:
                _running.discard(thread)

    thread = threading.Thread(target=run, name=name)
    with _lock:
        _running.add(thread)
    thread.start()
    return thread


def wait(timeout_s: float | None = None) -> None:
    """Wait for every tracked thread (each up to timeout_s)."""
    with _lock:
        threads = list(_running)
    for thread in threads:
        thread.join(timeout_s)
