#!/usr/bin/env bash
# Quickstart 2: set up (with test tools), then run every test that this machine can run.
# --fast: only the tests not marked slow (no explain/fix corpora, servers or other processes), for
# the inner loop; other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
# Tests run on KERNEL_EVAL_TEST_WORKERS pytest-xdist workers (default 2, one per core of the CI
# machine; 0: all in this process, e.g. for a debugger), each module on one worker.
workers=(-n "${KERNEL_EVAL_TEST_WORKERS:-2}" --dist loadgroup)
if [ "${1:-}" = "--fast" ]; then
    shift
    exec .venv/bin/python -m pytest -q "${workers[@]}" -m "not slow" "$@"
fi
exec .venv/bin/python -m pytest -q "${workers[@]}" --durations=20 "$@"
