#!/usr/bin/env bash
# Ray for the GPU machine, whose image has no Ray and whose device calls carry at most 64 MiB.
# Ray's wheel is about 79 MB; its contents without the Java workers' jars (ray/jars) and RLlib
# (ray/rllib), neither used by the batch engine, recompressed with xz, are about 32 MB: one call.
# Writes .whl-ray/ray-<version>-slim.tar.xz and .whl-ray/deps/ (Ray's dependencies that .whl/
# does not already hold); on the device scripts/ray_install.sh unpacks them into /tmp/site.
# Usage: scripts/ray_wheels.sh [RAY_VERSION] (default: the version in this checkout's .venv);
# takes a few minutes (xz on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-$(.venv/bin/python -c "import ray; print(ray.__version__)")}
rm -rf .whl-ray && mkdir -p .whl-ray/deps .whl-ray/unpacked
.venv/bin/python -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
  -d .whl-ray/deps "ray==$version"
for carried in .whl/*.whl; do  # one copy of each wheel: pip refuses the same package twice
  [ -e "$carried" ] && rm -f ".whl-ray/deps/$(basename "$carried")"
done
wheel=$(ls .whl-ray/deps/ray-*.whl)
# unpacked with each file's mode kept (zipfile -e drops it: Ray's gcs_server and raylet must stay executable)
.venv/bin/python - "$wheel" .whl-ray/unpacked <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for info in wheel.infolist():
        path = wheel.extract(info, sys.argv[2])
        mode = info.external_attr >> 16
        if mode and not info.is_dir():
            os.chmod(path, mode & 0o777)
PY
rm "$wheel"
tar -C .whl-ray/unpacked -cf - --exclude=./ray/jars --exclude=./ray/rllib . | xz -6 -T0 > ".whl-ray/ray-$version-slim.tar.xz"
rm -rf .whl-ray/unpacked
du -sh .whl-ray/*
