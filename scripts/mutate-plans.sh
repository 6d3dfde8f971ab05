#!/usr/bin/env bash
# Mutation check of the "hostile input" rule (docs/plan-format.md "Fuzzing"): after
# tigris_plan_load returns TIGRIS_OK, no run of the plan may misbehave, whatever its bytes.
# Compiles a float and an int8 model, mutates 1-4 bytes of each plan COUNT times (fixed
# seed), loads every mutant under ASan + UBSan and runs those that load on every reference
# kernel set. The first finding aborts with a sanitizer report; the mutant is left in
# WORK/last.tgrs as its reproducer.
#
# Usage: scripts/mutate-plans.sh [COUNT] [SEED] [--outside-weights]     (defaults 2000, 1)
# --outside-weights mutates only the bytes outside the weight blob (records, pools, quant).
# Environment: BUILD (build with the tigris CLI, default build), FUZZ_BUILD (a build
# configured with clang or gcc, ASan + UBSan, default build-fuzz), MODELS (the shared models,
# default ../shared/models), WORK (default FUZZ_BUILD/mutate), BUDGET (fast+slow, default 32K+4M),
# PLANS_EXTRA (more MODEL files to compile and mutate).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-2000}
seed=${2:-1}
build=${BUILD:-$root/build}
fuzz_build=${FUZZ_BUILD:-$root/build-fuzz}
models=${MODELS:-$root/../shared/models}
work=${WORK:-$fuzz_build/mutate}
budget=${BUDGET:-32K+4M}

mkdir -p "$work"
cmake --build "$build" --target tigris -j2 >/dev/null
cmake --build "$fuzz_build" --target mutate_plans -j2 >/dev/null

plans=()
for model in "$models/onnx/conv_relu_chain.onnx" "$models/tflite/kws_ref_model.tflite" ${PLANS_EXTRA:-}; do
  out="$work/$(basename "${model%.*}").tgrs"
  "$build/bin/tigris" compile "$model" -m "$budget" -o "$out" >/dev/null
  plans+=("$out")
done
"$fuzz_build/tests/mutate_plans" --count "$count" --seed "$seed" --save "$work" ${3:-} "${plans[@]}"
