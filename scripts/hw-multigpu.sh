#!/usr/bin/env bash
# Issue 7 on the device machine (device tool; docs/hardware.md, "Several GPUs"):
# 1. a one-GPU regression (litmus/ptx/MP+weaks, 10^7; the launch code changed for several GPUs);
# (and, last, the GPU hang input82665 of the third long fuzz run, which must end in seconds);
# 2. litmus/lsa with --stand-in (one CTA per GPU), then --one-device (one launch per GPU of
#    the test, all on GPU 0): the multi-GPU path on one GPU, NOT an NVLink run;
# 3. when the machine has two GPUs or more (nvidia-h200-x2): litmus/lsa on the GPUs the tests
#    name, x@k in GPU k's memory, peer access, every observed state held against lsa.
# Usage there: bash scripts/hw-multigpu.sh [ITERATIONS]     Writes at most 8 files under $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit 1
export PYTHONUNBUFFERED=1
iters=${1:-1000000}
out=${OUT:-/tmp/hwout}; mkdir -p "$out"
cfg=docs/data/hw-h200-power-best.json
hw="python3 -m gdrcheck.cli hw run --config $cfg"
{ date -u; nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -1
  python3 -c 'import cupy; print("cupy", cupy.__version__)'; } > "$out/env.txt" 2>&1
timeout 60 $hw litmus/ptx/MP+weaks.litmus --iterations 10000000 \
  --results "$out/hw-one-gpu.jsonl" > "$out/one-gpu.txt" 2>&1; echo "one-gpu rc=$?"
timeout 150 $hw litmus/lsa/*.litmus --stand-in --model lsa --iterations "$iters" \
  --results "$out/hw-lsa-standin.jsonl" > "$out/standin.txt" 2>&1; echo "stand-in rc=$?"
timeout 150 $hw litmus/lsa/*.litmus --one-device --model lsa --iterations "$iters" \
  --results "$out/hw-lsa-one-device.jsonl" > "$out/one-device.txt" 2>&1; echo "one-device rc=$?"
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  timeout 200 $hw litmus/lsa/*.litmus --model lsa --iterations "$iters" \
    --results "$out/hw-lsa-gpus.jsonl" > "$out/gpus.txt" 2>&1; echo "gpus rc=$?"
fi
# the third long fuzz run's GPU hang (an mbarrier wait nothing satisfies), fixed since: it must
# end within seconds (docs/input-rules.md)
start=$SECONDS
timeout 120 python3 -m gdrcheck.cli hw run scripts/fuzz-hangs/input82665.litmus \
  --iterations 1000 > "$out/input82665.txt" 2>&1
echo "input82665 rc=$? in $((SECONDS - start)) s"; tail -1 "$out/input82665.txt"
grep -hE "^(Test|Observation|SOUNDNESS)" "$out"/*.txt | cut -c1-200
grep -hiE "error|could not|cannot|Traceback" "$out"/*.txt | head -20
