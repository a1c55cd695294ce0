"""A server's warm start: what a first call would otherwise wait for, done as the server starts."""

from __future__ import annotations

import logging
import threading

from sandbox import backends
from tools.services import services

log = logging.getLogger("kernel_eval.sandbox")


def warm_start(backend_name: str = "auto") -> None:
    """The tools' imports (torch, Triton) in this process, and the default backend's sandbox started
    (on a GPU its spares make their device contexts)."""
    import tools.accuracy  # noqa: F401 - the import is the warm-up

    services().pool(backends.resolve(backend_name)).start()


def warm_start_in_background(backend_name: str = "auto") -> threading.Thread:
    """warm_start() on a thread; a failure is logged (the first call that needs the backend reports it)."""

    def run() -> None:
        try:
            warm_start(backend_name)
        except Exception:  # noqa: BLE001 - a server that cannot warm up still serves, and calls say why
            log.exception("warm start of the %s backend failed", backend_name)

    thread = threading.Thread(target=run, name="warm-start", daemon=True)
    thread.start()
    return thread
