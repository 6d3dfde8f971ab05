#!/usr/bin/env bash
# `make bench`: run every benchmark program built into BUILD/bench and print its table.
# Benchmarks read the models folder (TIGRIS_MODELS_DIR, default ../shared/models); they
# say so and stop when it is absent.
set -euo pipefail

build="${1:-build}"
mapfile -t programs < <(find "$build/bench" -maxdepth 2 -type f -perm -u+x -name 'bench[-_]*' 2>/dev/null | sort)
if [ ${#programs[@]} -eq 0 ]; then
  echo "bench: no benchmark programs in $build/bench; build first (make build)" >&2
  exit 1
fi
status=0
for program in "${programs[@]}"; do
  echo "== $(basename "$program")"
  "$program" || status=1
  echo
done
exit $status
