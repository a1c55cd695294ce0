#!/usr/bin/env bash
# Idempotent setup of a fresh Linux machine: a virtualenv in .venv with the CPU build of torch
# (pinned first: an unpinned torch pulls a multi-GB CUDA build), then this package and its tools.
# Usage: scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
extras=${1:-}

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  "${pip[@]}" install "torch==2.13.0"
fi
if [ "$extras" = "dev" ]; then
  "${pip[@]}" install -e ".[dev]"
else
  "${pip[@]}" install -e .
fi
