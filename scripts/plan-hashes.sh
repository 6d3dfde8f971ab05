#!/bin/sh
# Compiles every shared model at two fast budgets and prints one line per (model, budget):
# the plan's SHA-256, or the first line of the refusal. Two builds whose outputs are equal
# write byte-identical plans. Usage: scripts/plan-hashes.sh [BUILD] [MODELS] [BUDGET...]
set -u
BUILD=${1:-build}
MODELS=${2:-../shared/models}
shift 2 2>/dev/null || shift $#
BUDGETS=${*:-16M 64K}
TIGRIS=$BUILD/bin/tigris
[ -x "$TIGRIS" ] || { echo "Error: $TIGRIS not built" >&2; exit 2; }
[ -d "$MODELS" ] || { echo "Error: models folder $MODELS absent" >&2; exit 2; }
OUT=$(mktemp -d) || exit 1
trap 'rm -rf "$OUT"' EXIT
for model in "$MODELS"/onnx/*.onnx "$MODELS"/zoo/*.onnx "$MODELS"/tflite/*.tflite "$MODELS"/tflite-micro/*.tflite; do
    [ -f "$model" ] || continue
    for budget in $BUDGETS; do
        plan="$OUT/plan.tgrs"
        rm -f "$plan"
        if msg=$("$TIGRIS" compile "$model" -m "$budget+64M" -o "$plan" 2>&1 >/dev/null); then
            hash=$(sha256sum "$plan" | cut -c1-16)
        else
            hash="refused: $(printf "%s\n" "$msg" | head -n1 | cut -c1-160)"
        fi
        printf '%s %s %s\n' "${model#"$MODELS"/}" "$budget" "$hash"
    done
done
