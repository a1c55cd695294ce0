"""Test session setup: a private KERNEL_EVAL_HOME, removed at the end, and sandbox pools closed."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="kernel-eval-test-home-")
os.environ["KERNEL_EVAL_HOME"] = _HOME  # before anything makes the services
os.environ["KERNEL_EVAL_NO_DAEMON"] = "1"  # CLI tests run in-process; tests/test_daemon.py starts its own daemons


@pytest.fixture(scope="session", autouse=True)
def _close_pools():
    yield
    from sandbox.pool import Pool

    Pool.close_all()
    shutil.rmtree(_HOME, ignore_errors=True)  # goldens and runs of a session: hundreds of MB


@pytest.fixture(scope="session")
def kernel_home() -> str:
    return _HOME


def is_root() -> bool:
    return os.geteuid() == 0


needs_root = pytest.mark.skipif(not is_root(), reason="namespaces, uid drop and read-only root need root")
