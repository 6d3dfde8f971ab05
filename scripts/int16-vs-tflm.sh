#!/usr/bin/env bash
# The int16 (16x8) kernels against a local TensorFlow Lite Micro build, on single-operator
# models the seanet set does not cover (tests/tflm_int16/int16_vs_tflm.cpp lists them):
#   scripts/int16-vs-tflm.sh BUILD_DIR TFLM_REF [WORK_DIR]
# TFLM_REF is the tflm_ref probe ../shared/tools/tflm-reference builds. The models are
# written to WORK_DIR (default: a temporary folder, removed afterwards), TensorFlow Lite Micro
# writes its outputs for four inputs each, and every model is compiled at 16M and at its
# floor and compared. Exit status 1 when a model differs. Not part of `make test` (it needs
# the TensorFlow Lite Micro build).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR TFLM_REF [WORK_DIR]" >&2
  exit 2
fi
build=$1
tflm_ref=$2
tool="$build/bin/int16-vs-tflm"
[ -x "$tool" ] || { echo "Error: $tool is not built (cmake --build $build --target int16-vs-tflm)" >&2; exit 1; }
[ -x "$tflm_ref" ] || { echo "Error: $tflm_ref is not an executable tflm_ref" >&2; exit 1; }
if [ $# -ge 3 ]; then
  work=$3
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
"$tool" write "$work"
for model in "$work"/*.tflite; do
  name=$(basename "$model" .tflite)
  mkdir -p "$work/$name"
  "$tflm_ref" "$model" "$work/$name" 4 > "$work/$name/tflm_ref.log" 2>&1 ||
    { echo "Error: tflm_ref failed on $model (see $work/$name/tflm_ref.log)" >&2; exit 1; }
done
"$tool" check "$work"
