"""Test session setup: a private KERNEL_EVAL_HOME, removed at the end, and sandbox pools closed."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="kernel-eval-test-home-")
atexit.register(shutil.rmtree, _HOME, True)  # also where no session fixture runs (xdist's controller)
os.environ["KERNEL_EVAL_HOME"] = _HOME  # before anything makes the services
# Background fills of seed pools would compete with the next tests for this 2-core machine's slots;
# tests/test_inputs_in_job.py turns them on where it tests them.
os.environ["KERNEL_EVAL_FILL_POOL"] = "0"
# Ray (the batch engine's tests), before it is imported: every address on loopback (its default
# replaces 127.0.0.1 with the machine's own address), no auth token written to ~/.ray, no usage report.
os.environ.update(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
os.environ["KERNEL_EVAL_NO_DAEMON"] = "1"  # CLI tests run in-process; tests/test_daemon.py starts its own daemons


#: Modules whose tests run explain_failure / suggest_fix, whole corpora, other processes or servers:
#: marked `slow`. `scripts/test.sh --fast` (pytest -m "not slow") runs the rest in a few minutes,
#: for the inner loop; the whole suite is what CI runs.
SLOW_MODULES = {
    "test_access_shapes",
    "test_batch",
    "test_batch_ray",
    "test_batch_ray_cli",
    "test_daemon",
    "test_demos",
    "test_deterministic_reduction",
    "test_diagnosis",
    "test_diagnosis_layout",
    "test_diagnosis_soundness",
    "test_examples",
    "test_experiments",
    "test_shapes",
    "test_heldout_gate",
    "test_http_exposure",
    "test_integer_outputs",
    "test_masked_outputs",
    "test_mcp_server",
    "test_mutation_corpus",
    "test_mutation_corpus_kernels",
    "test_out_of_bounds_reads",
    "test_patches_generalised",
    "test_patches_loops",
    "test_realworld",
    "test_server_start",
    "test_where",
}


#: Modules that must share one xdist worker: each starts a local Ray cluster.
ONE_WORKER_GROUPS = {"test_batch_ray": "ray", "test_batch_ray_cli": "ray"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module is not None else ""
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        # scripts/test.sh runs `-n 2 --dist loadgroup`: a module's tests stay on one worker (module
        # fixtures, servers and daemons are made once), the Ray modules on the same one; a test that names its
        # own group keeps it
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(ONE_WORKER_GROUPS.get(module, module)))


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
