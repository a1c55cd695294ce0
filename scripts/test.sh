#!/usr/bin/env bash
# Quickstart 2: set up (with test tools), then run every test that this machine can run.
# --fast: only the tests not marked slow (no explain/fix corpora, servers or other processes), for
# the inner loop; other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
if [ "${1:-}" = "--fast" ]; then
    shift
    exec .venv/bin/python -m pytest -q -m "not slow" "$@"
fi
exec .venv/bin/python -m pytest -q "$@"
