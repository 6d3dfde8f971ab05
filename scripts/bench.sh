#!/usr/bin/env bash
# `make bench`: run every benchmark program built into BUILD/bench and print its table.
# Benchmarks read the models folder (TIGRIS_MODELS_DIR, default ../shared/models); they
# say so and stop when it is absent.
set -euo pipefail

build="${1:-build}"
shopt -s nullglob
programs=("$build"/bench/bench-*)
if [ ${#programs[@]} -eq 0 ]; then
  echo "bench: no benchmark programs in $build/bench; build first (make build)" >&2
  exit 1
fi
status=0
for program in "${programs[@]}"; do
  [ -x "$program" ] || continue
  echo "== $(basename "$program")"
  "$program" || status=1
  echo
done
exit $status
