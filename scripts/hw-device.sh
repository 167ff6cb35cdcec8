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
  # and the programmatic-dependent-launch tests (one launch per grid, gdrcheck/hw/pdl.py)
  files=(litmus/ptx/*.litmus /tmp/gen/*.litmus litmus/ptx75/PDL*.litmus
         litmus/realbugs/*pdl*.litmus)
  pdl_wave=1
fi
out=${OUT:-/tmp/hwout}; mkdir -p "$out/kernels"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader;
  nvcc --version | tail -2; python3 -c 'import cupy; print("cupy", cupy.__version__)'; } \
  > "$out/env.txt" 2>&1
python3 -m gdrcheck.cli hw run "${files[@]}" --iterations "$iters" --stress "$stress" \
  --results "$out/hw.jsonl" --kernels "$out/kernels" > "$out/hw.txt" 2> "$out/hw.err"
rc=$?
if [ "${pdl_wave:-0}" = 1 ]; then
  # the PDL tests again with a primary that fits on the GPU in one wave (132 SMs x 16
  # blocks of 64 threads: half of sm_90's 32 resident blocks per SM, the other half free
  # for the secondary; docs/hardware.md, "Programmatic dependent launch")
  python3 -m gdrcheck.cli hw run litmus/ptx75/PDL*.litmus litmus/realbugs/*pdl*.litmus \
    --iterations "$iters" --batch 135168 --ipb 64 --stride 16 --layout loc-major --sync 64 \
    --results "$out/hw.jsonl" >> "$out/hw.txt" 2>> "$out/hw.err"
  rc2=$?; [ $rc -eq 0 ] && rc=$rc2
fi
tar -C "$out" -czf "$out/kernels.tgz" kernels && rm -rf "$out/kernels"
cat "$out/env.txt"; grep -E "^(Observation|SOUNDNESS|Model)" "$out/hw.txt" | tail -120
tail -5 "$out/hw.err"; echo "rc=$rc"
