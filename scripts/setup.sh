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
# compat: the editable install is a plain path in a .pth file. The default (an import hook) costs every
# Python start in this venv ~17 ms (pathlib, re, importlib.util), which every warm `kernel-eval` call pays.
editable=(install --config-settings editable_mode=compat -e)
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  # On plain PyPI the Linux wheel of torch bundles CUDA; TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
  # picks the CPU build there (this project's machines get it from their own index without it).
  "${pip[@]}" install "torch==2.13.0" ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"}
fi
if [ "$extras" = "dev" ]; then
  # ray: the batch engine's tests run a real local Ray cluster (tests/test_batch_ray*.py)
  "${pip[@]}" "${editable[@]}" ".[dev,ray]"
  # The MCP Inspector CLI, a client nobody here wrote, for tests/test_mcp_server.py (pinned, local).
  if command -v npm >/dev/null && [ ! -x .mcp-inspector/node_modules/.bin/mcp-inspector ]; then
    mkdir -p .mcp-inspector
    npm install --prefix .mcp-inspector --no-audit --no-fund --silent @modelcontextprotocol/inspector@0.15.0
  fi
else
  "${pip[@]}" "${editable[@]}" .
fi
