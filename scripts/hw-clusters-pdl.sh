#!/usr/bin/env bash
# Issue 28 item 7 on the device machine (device tool; docs/hardware.md, "Clusters and PDL
# on the H200"): the thread-block-cluster tests and the programmatic-dependent-launch
# tests, each observed state held against ptx75, under two harness settings (the default
# and the best one of the harness-power search, docs/data/hw-h200-power-best.json), so
# that each Allowed test's weak-outcome rate says how much the harness can show.
# Usage there: bash scripts/hw-clusters-pdl.sh CLUSTER_ITERS PDL_ITERS [clusters|pdl|all]
# Writes at most 8 files under $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit 1
export PYTHONUNBUFFERED=1
citers=${1:-10000000}; piters=${2:-1000000}; what=${3:-all}
out=${OUT:-/tmp/hwout}; mkdir -p "$out"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  nvcc --version | tail -2; python3 -c 'import cupy; print("cupy", cupy.__version__)'
  python3 -c 'import cupy; p = cupy.cuda.runtime.getDeviceProperties(0); print("SMs", p["multiProcessorCount"])'
} > "$out/env.txt" 2>&1
best=docs/data/hw-h200-power-best.json
clusters=(litmus/ptx75/Cluster*.litmus litmus/realbugs/cutlass-3324-*.litmus)
pdls=(litmus/ptx75/PDL*.litmus litmus/realbugs/*pdl*.litmus)
log="$out/log.txt"; : > "$log"
step() {  # NAME TIMEOUT ARGS...: one `gdrcheck hw run`, its results in NAME.jsonl
  local name=$1 limit=$2; shift 2
  echo "== $name: $*" >> "$log"
  timeout "$limit" python3 -m gdrcheck.cli hw run "$@" --model ptx75 \
    --results "$out/$name.jsonl" >> "$log" 2>&1
  echo "$name rc=$?" >> "$log"
}
if [ "$what" != pdl ]; then
step clusters-default 180 "${clusters[@]}" --iterations "$citers"
step clusters-best 180 "${clusters[@]}" --iterations "$citers" --config "$best"
fi
if [ "$what" != clusters ]; then
step pdl-default 100 "${pdls[@]}" --iterations "$piters"
# a primary that fits on the GPU in one wave (132 SMs x 16 blocks of 64 threads), as
# scripts/hw-device.sh runs it
step pdl-one-wave 100 "${pdls[@]}" --iterations "$piters" --batch 135168 --ipb 64 \
  --stride 16 --layout loc-major --sync 64
fi
cat "$out/env.txt"
grep -hE "^(==|Observation|SOUNDNESS|Model|Left out)|rc=|could not|Error|rror:" "$log" | tail -150
exit 0
