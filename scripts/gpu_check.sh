#!/usr/bin/env bash
# The CUDA backend on a GPU machine, in one call (the H200 of the device tool). The image has
# torch and triton but no pydantic: carry the wheels in .whl/ (README of the device tool), and
# for the Ray engine's tests .whl-ray/ as well (scripts/ray_wheels.sh makes it).
#   scripts/gpu_check.sh            # writes device.txt, gpu_tests.txt, gpu_record.json, gpu_bench.*
#                                   # and summary.txt to $OUT (default /tmp/gpu-check)
#   SKIP_BENCH=1 scripts/gpu_check.sh   # tests and the diagnosis corpora only
#   PARTS="bench diag" scripts/gpu_check.sh   # a subset of: tests bench diag (device calls are
#                                             # limited to 10 minutes: split the work over two)
#   DIAG_ARGS="--per-operator 4"              # passed to benchmarks/diagnosis_eval.py
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
  if ls .whl-ray/ray-*-slim.tar.xz >/dev/null 2>&1; then bash scripts/ray_install.sh || exit 1; fi  # Ray: optional
else
  export PYTHONPATH=$PWD
fi
export KERNEL_EVAL_HOME=${KERNEL_EVAL_HOME:-/tmp/kernel-eval-gpu} PYTHONUNBUFFERED=1 GPU_RECORD=$OUT/gpu_record.json
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__)"
  uname -r
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

PARTS=${PARTS:-tests bench diag}
tests_rc=0; bench_rc=0; diag_rc=0
if [[ " $PARTS " == *" tests "* ]]; then
  # written as it goes (a call cut short by its time limit still leaves what ran), then its tail kept
  timeout ${TEST_TIMEOUT:-500} python3 -m pytest -q -m gpu tests/gpu -p no:cacheprovider -rA > "$OUT/gpu_tests_full.txt" 2>&1
  tests_rc=$?
  tail -60 "$OUT/gpu_tests_full.txt" > "$OUT/gpu_tests.txt"
  tail -25 "$OUT/gpu_tests.txt"
fi

if [ -n "${SKIP_BENCH:-}" ] || [[ " $PARTS " != *" bench "* ]]; then  # tests and corpus only
  echo "skipped (SKIP_BENCH)" > "$OUT/gpu_bench.txt"; bench_rc=0
else
  timeout ${BENCH_TIMEOUT:-400} python3 benchmarks/gpu_bench.py ${BENCH_ARGS:-} --json "$OUT/gpu_bench.json" > "$OUT/gpu_bench.txt" 2>&1
  bench_rc=$?
fi
cat "$OUT/gpu_bench.txt"

if [[ " $PARTS " == *" diag "* ]]; then
  # shellcheck disable=SC2086 # DIAG_ARGS is a list of flags
  timeout ${DIAG_TIMEOUT:-400} python3 benchmarks/diagnosis_eval.py --backend cuda ${DIAG_ARGS:-} --json "$OUT/diagnosis_cuda.json" \
    > "$OUT/diagnosis_cuda.txt" 2>&1
  diag_rc=$?
  grep -E "^labelled corpus|^\| (\*\*all|[a-z_]+ \| [0-9])|^false diagnoses|^total" "$OUT/diagnosis_cuda.txt"
fi

{
  echo "gpu_check $(date -u +%Y-%m-%dT%H:%MZ): tests rc=$tests_rc, bench rc=$bench_rc"
  cat "$OUT/device.txt"
  echo; echo "## tests"; grep -E "passed|failed|error" "$OUT/gpu_tests.txt" | tail -3
  echo; echo "## benchmark"; grep -E "^\|" "$OUT/gpu_bench.txt"
  echo; echo "## diagnosis corpora on cuda"; grep -E "^labelled corpus|^\| \*\*all|^false diagnoses" "$OUT/diagnosis_cuda.txt" 2>/dev/null
} > "$OUT/summary.txt"
exit $(( tests_rc != 0 || bench_rc != 0 || diag_rc != 0 ))
