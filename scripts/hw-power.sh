#!/usr/bin/env bash
# Issue 14 items 6 and 7 on the device machine (device tool; docs/hardware.md):
# the harness-power search (bench/bench_hw_power.py), then litmus/ptx75 and the fitting
# dat3m-ptx75 tests under ptx75 and litmus/ptx under ptx, with the best setting.
# Usage there: bash scripts/hw-power.sh BENCH_ITERS RANDOM_SETTINGS SUITE_ITERS [DAT3M_DIR]
# Writes at most 8 files under $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit 1
export PYTHONUNBUFFERED=1
bench=${1:-10000000}; nrand=${2:-6}; iters=${3:-10000000}; dat3m=${4:-}
out=${OUT:-/tmp/hwout}; mkdir -p "$out"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  nvcc --version | tail -2; python3 -c 'import cupy; print("cupy", cupy.__version__)'
  python3 -c 'import cupy; p = cupy.cuda.runtime.getDeviceProperties(0); print("SMs", p["multiProcessorCount"])'
} > "$out/env.txt" 2>&1
timeout 270 python3 bench/bench_hw_power.py --iterations "$bench" --random "$nrand" \
  --json "$out/hw-power.json" --best "$out/best.json" > "$out/bench.log" 2>&1
echo "bench rc=$?" >> "$out/bench.log"
[ -s "$out/best.json" ] || echo '{}' > "$out/best.json"
files=(litmus/ptx75/*.litmus)
[ -n "$dat3m" ] && files+=("$dat3m"/*.litmus)
timeout 150 python3 -m gdrcheck.cli hw run "${files[@]}" --model ptx75 --iterations "$iters" \
  --config "$out/best.json" --results "$out/hw-h200-ptx75.jsonl" > "$out/ptx75.txt" 2>&1
echo "ptx75 rc=$?" >> "$out/ptx75.txt"
if [ "${PTX_TOO:-0}" = 1 ]; then
  timeout 150 python3 -m gdrcheck.cli hw run litmus/ptx/*.litmus --model ptx \
    --iterations "$iters" --config "$out/best.json" --results "$out/hw-h200-ptx-power.jsonl" \
    > "$out/ptx.txt" 2>&1
  echo "ptx rc=$?" >> "$out/ptx.txt"
fi
cat "$out/env.txt"; tail -40 "$out/bench.log"
grep -hE "^(Observation|SOUNDNESS|Model|Left out)|rc=|could not|Error" "$out/ptx75.txt" | tail -60
[ -f "$out/ptx.txt" ] && grep -hE "^(Observation|SOUNDNESS)|rc=" "$out/ptx.txt" | tail -60
exit 0
