#!/usr/bin/env bash
# Quickstart 1: set up, then run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python examples/demo.py "$@"
