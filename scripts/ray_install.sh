#!/usr/bin/env bash
# On the GPU machine: installs the Ray that scripts/ray_wheels.sh packed into .whl-ray/ (carry it
# with .whl/) into /tmp/site, where scripts/gpu_check.sh puts the other wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
site=${SITE:-/tmp/site}
mkdir -p "$site"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .whl-ray/deps/*.whl
tar -xJf .whl-ray/ray-*-slim.tar.xz -C "$site"
PYTHONPATH="$site" python3 -c "import ray; print('ray', ray.__version__, 'installed in', '$site')"
