#!/usr/bin/env bash
# Quickstart 2: set up (with test tools), then run every test that this machine can run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
exec .venv/bin/python -m pytest -q "$@"
