#!/usr/bin/env bash
# Robustness check of the tigris command on damaged files.
#   mutate-cli.sh [--count N] [--seed S] [--timeout SEC] [--keep] TIGRIS MODELS_DIR
# Takes the small .tflite and .onnx models of MODELS_DIR (and its plans/), compiles a few
# plans from them, writes N mutated or truncated copies (deterministic for a seed: bytes
# flipped, 32-bit fields overwritten with extreme values, ranges duplicated or cut) and runs
# inspect, analyze, compile and export on each. Every run must:
#   - exit 0, 1 or 2 (no signal, no hang past the timeout);
#   - print at most one line starting with `Error:` on stderr, all of it valid UTF-8;
#   - leave no output file when it fails, and no temporary file ever.
# Prints one line per violation (with the command to reproduce it) and a summary; exits 1
# when there is any violation. Needs bash, python3 (to mutate), timeout and iconv.
set -u

count=600
seed=1
limit=20
keep=0
while [ $# -gt 2 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: mutate-cli.sh [--count N] [--seed S] [--timeout SEC] [--keep] TIGRIS MODELS_DIR" >&2
  exit 2
fi
tigris=$(realpath "$1")
models=$2
[ -x "$tigris" ] || { echo "mutate-cli: $1 is not an executable" >&2; exit 2; }
[ -d "$models" ] || { echo "mutate-cli: $models is not a folder" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tigris-mutate-XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/files" "$work/out"

# Seeds: models up to 512 KiB (a mutated copy of a large model only costs time), and plans.
for f in "$models"/tflite/*.tflite "$models"/onnx/*.onnx "$models"/plans/*.tgrs; do
  [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 524288 ] && cp "$f" "$work/seeds/"
done
for m in conv_relu_chain linear_3op ds_cnn; do
  [ -f "$work/seeds/$m.onnx" ] && "$tigris" compile "$work/seeds/$m.onnx" -m 1M -o "$work/seeds/$m.tgrs" >/dev/null 2>&1
done
if ! ls "$work/seeds/"* >/dev/null 2>&1; then
  echo "mutate-cli: no models in $models" >&2
  exit 2
fi

python3 - "$work/seeds" "$work/files" "$count" "$seed" <<'EOF'
import os, random, struct, sys
seeds_dir, out_dir, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seeds = sorted(os.listdir(seeds_dir))
rng = random.Random(seed)
extremes = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000]
for i in range(count):
    name = seeds[i % len(seeds)]
    data = bytearray(open(os.path.join(seeds_dir, name), 'rb').read())
    kind = rng.randrange(5)
    if kind == 0 or len(data) < 16:    # truncated
        data = data[:rng.randrange(len(data) + 1)]
    elif kind == 1:                    # bytes flipped
        for _ in range(rng.randrange(1, 9)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == 2:                    # 32-bit fields overwritten, mostly in the header area
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(min(len(data) - 4, 4096 if rng.random() < 0.7 else len(data) - 4))
            data[at:at + 4] = struct.pack('<I', rng.choice(extremes))
    elif kind == 3:                    # a range duplicated
        a = rng.randrange(len(data)); b = min(len(data), a + rng.randrange(1, 256))
        data[a:a] = data[a:b]
    else:                              # a range cut out
        a = rng.randrange(len(data)); b = min(len(data), a + rng.randrange(1, 256))
        del data[a:b]
    stem, ext = os.path.splitext(name)
    open(os.path.join(out_dir, '%04d-%s%s' % (i, stem, ext)), 'wb').write(data)
EOF

runs=0
bad=0
declare -A codes=()
report() {
  bad=$((bad + 1))
  echo "FAIL $1: (cd $work/out && $tigris ${*:2})"
}
for file in "$work"/files/*; do
  for cmd in inspect analyze compile export; do
    case $cmd in
      inspect) args=(inspect "$file" -v); out="" ;;
      analyze) args=(analyze "$file" -m 64K -v); out="" ;;
      compile) args=(compile "$file" -m 256K -o "$work/out/p.tgrs"); out="$work/out/p.tgrs" ;;
      export) args=(export "$file" -o "$work/out/e.tflite"); out="$work/out/e.tflite" ;;
    esac
    rm -f "$work"/out/* "$work"/out/.*tmp* 2>/dev/null
    (cd "$work/out" && timeout -s KILL "$limit" "$tigris" "${args[@]}" >"$work/stdout" 2>"$work/stderr")
    code=$?
    runs=$((runs + 1))
    codes[$code]=$(( ${codes[$code]:-0} + 1 ))
    if [ "$code" -gt 2 ]; then
      report "exit $code$([ "$code" = 137 ] && echo ' (killed after the timeout)')" "${args[@]}"
      continue
    fi
    errors=$(grep -c '^Error:' "$work/stderr")
    [ "$errors" -le 1 ] || report "$errors Error: lines" "${args[@]}"
    iconv -f UTF-8 -t UTF-8 "$work/stderr" >/dev/null 2>&1 || report "stderr is not valid UTF-8" "${args[@]}"
    if [ "$code" -ne 0 ] && [ -n "$out" ] && [ -e "$out" ]; then report "exit $code but $out exists" "${args[@]}"; fi
    if ls -A "$work/out" | grep -q tmp-; then report "a temporary file is left" "${args[@]}"; fi
  done
done

summary=""
for code in $(printf '%s\n' "${!codes[@]}" | sort -n); do summary+=" exit $code: ${codes[$code]};"; done
echo "mutate-cli: $count files (seed $seed), $runs runs,$summary $bad violations"
[ "$bad" -eq 0 ]
