#!/usr/bin/env bash
# Run the PTX library on the device machine (device tool; docs/hardware.md).
# Usage there: bash scripts/hw-device.sh ITERATIONS STRESS [FILES...]
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit 1
export PYTHONUNBUFFERED=1
iters=${1:-1000000}; stress=${2:-64}; shift 2 || true
files=("$@"); [ ${#files[@]} -eq 0 ] && files=(litmus/ptx/*.litmus)
out=${OUT:-/tmp/hwout}; mkdir -p "$out/kernels"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader;
  nvcc --version | tail -2; python3 -c 'import cupy; print("cupy", cupy.__version__)'; } \
  > "$out/env.txt" 2>&1
python3 -m gdrcheck.cli hw run "${files[@]}" --iterations "$iters" --stress "$stress" \
  --results "$out/hw.jsonl" --kernels "$out/kernels" > "$out/hw.txt" 2> "$out/hw.err"
rc=$?
tar -C "$out" -czf "$out/kernels.tgz" kernels && rm -rf "$out/kernels"
cat "$out/env.txt"; grep -E "^(Observation|SOUNDNESS|Model)" "$out/hw.txt" | tail -120
tail -5 "$out/hw.err"; echo "rc=$rc"
