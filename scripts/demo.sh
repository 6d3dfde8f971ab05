#!/usr/bin/env bash
# `make demo`: analyze -> compile -> run on a small model the project generates itself
# (tools/demo-model: a seeded conv/relu/pool/gemm network, its input, and the output of
# an independent float forward pass), then compare the plan's output with that reference.
set -euo pipefail

build="${1:-build}"
build="$(cd "$build" && pwd)"
tigris="$build/bin/tigris"
generator="$build/bin/tigris-demo-model"
work="$build/demo"

for tool in "$tigris" "$generator"; do
  if [ ! -x "$tool" ]; then
    echo "demo: $tool is missing; build first (make build)" >&2
    exit 1
  fi
done

rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$generator" write .

step() {
  echo
  echo "\$ $*"
  "$@"
}

# The commands are shown as a user would type them, run from the demo folder.
tigris() { "$tigris" "$@"; }
tigris-demo-model() { "$generator" "$@"; }

step tigris --version
step tigris inspect demo.onnx
step tigris analyze demo.onnx -m 64K+1M
step tigris analyze demo.onnx -m 192K+1M -f 64K -v
step tigris compile demo.onnx -m 192K+1M -f 64K -o demo.tgrs
step tigris inspect demo.tgrs
step tigris run demo.tgrs --input demo_input.npy --output demo_output.npy
step tigris-demo-model compare demo_output.npy demo_expected.npy
echo
echo "demo files are in $work"
