#!/usr/bin/env bash
# Run the PTX library on the device machine (device tool; docs/hardware.md).
# Usage there: bash scripts/hw-device.sh ITERATIONS STRESS [FILES...]
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit 1
export PYTHONUNBUFFERED=1
iters=${1:-1000000}; stress=${2:-64}; shift 2 || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  # the library, plus generated shapes across CTAs of one GPU at .cta and .gpu scope
  mkdir -p /tmp/gen
  for sc in cta gpu; do
    for c in 'Fre PodWR Fre PodWR' 'Rfe PodRW Rfe PodRW' 'PodWW Rfe PodRR Fre' \
             'Rfe PodRR Fre Rfe PodRR Fre' 'FenceSCdWR Fre FenceSCdWR Fre' \
             'FenceAcqReldWW Rfe FenceAcqReldRR Fre' 'Rfe FenceSCdRR Fre Rfe FenceSCdRR Fre'; do
      python3 -m gdrcheck.cli generate "$c" --dialect ptx --scope $sc > "/tmp/gen/$sc-${c// /+}.litmus"
    done
  done
  files=(litmus/ptx/*.litmus /tmp/gen/*.litmus)
fi
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
