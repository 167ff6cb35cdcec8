#!/usr/bin/env bash
# The real-bug library on the device machine (device tool; docs/realbugs.md, "On the H200"):
# every litmus/realbugs test that `gdrcheck hw` can generate, buggy and fixed, run with
# --stand-in (one CTA standing in for each GPU: NOT an NVLink run) and the best harness
# setting (docs/data/hw-h200-power-best.json); then the mutation fuzzer, whose inputs go
# through `hw run` too, for FUZZ_SECONDS.
# Usage there: bash scripts/hw-realbugs.sh ITERATIONS [FUZZ_SECONDS]
# Writes at most 8 files under $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit 1
export PYTHONUNBUFFERED=1
iters=${1:-10000000}; fuzz=${2:-0}
out=${OUT:-/tmp/hwout}; mkdir -p "$out"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  nvcc --version | tail -2; python3 -c 'import cupy; print("cupy", cupy.__version__)'
} > "$out/env.txt" 2>&1
timeout 300 python3 -m gdrcheck.cli hw run litmus/realbugs/*.litmus --stand-in \
  --iterations "$iters" --config docs/data/hw-h200-power-best.json \
  --results "$out/hw-h200-realbugs.jsonl" > "$out/realbugs.txt" 2> "$out/realbugs.err"
echo "realbugs rc=$?" >> "$out/realbugs.txt"
grep -E "^(Observation|SOUNDNESS)" "$out/realbugs.txt"; tail -3 "$out/realbugs.txt"
grep -c "cannot run\|could not run" "$out/realbugs.err"; grep "could not run" "$out/realbugs.err" | head
if [ "$fuzz" -gt 0 ]; then
  timeout $((fuzz + 120)) python3 scripts/fuzz.py --n 100000 --seed 1 --jobs 16 \
    --max-seconds "$fuzz" --summary "$out/fuzz.json" --out /tmp/fuzz-out > "$out/fuzz.log" 2>&1
  echo "fuzz rc=$?" >> "$out/fuzz.log"
  tar -C /tmp -czf "$out/fuzz-out.tgz" fuzz-out 2>/dev/null
  tail -15 "$out/fuzz.log"
fi
