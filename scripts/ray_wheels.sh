#!/usr/bin/env bash
# Ray for the GPU machine, whose image has no Ray and whose device calls carry at most 64 MiB:
# downloads Ray and its dependencies for its Python (3.12, manylinux x86_64) into .whl-ray/ and
# splits Ray's wheel (about 79 MB) into two halves, one per call:
#   .whl-ray/a/   first half      .whl-ray/b/   second half      .whl-ray/deps/   its dependencies
# On the device, scripts/ray_wheel_join.sh stashes each half and, once both are there, installs Ray.
# Usage: scripts/ray_wheels.sh [RAY_VERSION] (default: the version in this checkout's .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-$(.venv/bin/python -c "import ray; print(ray.__version__)")}
rm -rf .whl-ray && mkdir -p .whl-ray/a .whl-ray/b .whl-ray/deps
.venv/bin/python -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
  -d .whl-ray/deps "ray==$version"
wheel=$(ls .whl-ray/deps/ray-*.whl)
name=$(basename "$wheel")
size=$(stat -c %s "$wheel")
half=$(( (size + 1) / 2 ))
head -c "$half" "$wheel" > ".whl-ray/a/$name.part-a"
tail -c +"$(( half + 1 ))" "$wheel" > ".whl-ray/b/$name.part-b"
sha256sum "$wheel" | cut -d' ' -f1 > ".whl-ray/b/$name.sha256"
rm "$wheel"
du -sh .whl-ray/a .whl-ray/b .whl-ray/deps
