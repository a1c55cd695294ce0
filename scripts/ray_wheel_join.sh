#!/usr/bin/env bash
# On the GPU machine (it stays warm between device calls): keeps each half of Ray's wheel carried
# in .whl-ray/ (see scripts/ray_wheels.sh) in /tmp/ray-wheel; once both halves are there, joins
# them, checks the checksum and installs Ray with .whl-ray/deps into /tmp/site, where
# scripts/gpu_check.sh puts the other wheels. Exit 0 with "waiting for the other half" after the first.
set -euo pipefail
cd "$(dirname "$0")/.."
stash=${RAY_STASH:-/tmp/ray-wheel}
site=${SITE:-/tmp/site}
mkdir -p "$stash"
cp .whl-ray/a/* .whl-ray/b/* "$stash"/ 2>/dev/null || true
if [ -d .whl-ray/deps ]; then mkdir -p "$stash/deps" && cp .whl-ray/deps/*.whl "$stash/deps/"; fi
a=$(ls "$stash"/*.part-a 2>/dev/null || true)
b=$(ls "$stash"/*.part-b 2>/dev/null || true)
if [ -z "$a" ] || [ -z "$b" ] || [ ! -d "$stash/deps" ]; then
  echo "ray wheel: waiting for the other half (have: $(ls "$stash" | tr '\n' ' '))"
  exit 0
fi
wheel="$stash/$(basename "${a%.part-a}")"
cat "$a" "$b" > "$wheel"
echo "$(cat "${b%.part-b}.sha256")  $wheel" | sha256sum -c -
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" "$wheel" "$stash"/deps/*.whl
PYTHONPATH="$site" python3 -c "import ray; print('ray', ray.__version__, 'installed in', '$site')"
