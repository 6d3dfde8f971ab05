#!/usr/bin/env bash
# bench-device [--json] [--trim] [--boards "mps2-an386 mps3-an547"] [--models DIR] [--only NAME]
#
# Instructions per inference of TiGrIS firmware on QEMU's Cortex-M boards. For each model (the
# MLPerf Tiny models of MODELS/tflite, TFLite Micro's person_detect, the QDQ MobileNetV2-0.35
# and float32 visual wake words), two budgets (untiled: 4 MiB fast, one stage per op; and the
# tightest the scheduler fits, `tigris analyze`'s minimum_for_partition_bytes) and each kernel
# backend (int8: reference kernels and CMSIS-NN; float32: the float reference kernels), one
# firmware of examples/cortex-m is built and run once under
#     qemu-system-arm -M BOARD -icount shift=0 -semihosting
# How instructions are counted: with -icount shift=0 QEMU's virtual clock advances exactly
# 1 ns per executed guest instruction; the firmware reads SysTick (processor clock, 25 MHz on
# mps2-an386, 32 MHz on mps3-an547) before and after model_run() (input write, every stage,
# output read) and prints ticks x 1e9 / clock (examples/cortex-m/counter.h; resolution one
# tick, 40 or 31.25 instructions). These are executed instructions, not cycles: QEMU models no
# pipeline, no wait states and no cache.
#
# Columns: model, budget, kernels, instructions per inference, instructions per MAC (MACs from
# `tigris inspect`), fast and slow peak (measured by the firmware), plan bytes, flash: the
# firmware's text+data without the plan and the input it embeds (runtime, vendor library,
# libc/libgcc pieces, start-up; the linker keeps only what is reached, so a plan that uses
# fewer kernels links fewer). --trim adds the flash of the same firmware linked against a runtime
# built for its plan (the `trim` defines `tigris codegen` writes, TIGRIS_RUNTIME_DEFINES; one cross
# build per distinct set, several minutes more). --json prints the same rows as a JSON array. A firmware whose output
# bytes differ from the host run of the same plan and input (`tigris run --stored-order`: the
# firmware passes the input in the plan's stored axis order) is not measured but reported.
set -euo pipefail

src=@CMAKE_SOURCE_DIR@
host=@CMAKE_BINARY_DIR@
models=@TIGRIS_MODELS_DIR@
cmsis=@TIGRIS_CMSIS_NN_DIR@
json=0
trim=0
boards="mps2-an386"
only=""
while [ $# -gt 0 ]; do
  case $1 in
    --json) json=1; shift ;;
    --trim) trim=1; shift ;;
    --boards) boards=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "Error: unknown argument '$1' (bench-device --help)" >&2; exit 2 ;;
  esac
done
say() { [ "$json" -eq 1 ] || printf '%s\n' "$*"; }
for tool in arm-none-eabi-gcc arm-none-eabi-size arm-none-eabi-nm qemu-system-arm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench-device: $tool is not installed (scripts/install-deps.sh)" >&2; exit 1; }
done
if [ ! -d "$models/tflite" ]; then
  echo "bench-device: no models folder at $models; nothing to measure" >&2
  exit 1
fi
tigris=$host/bin/tigris
work=$host/bench/device
mkdir -p "$work"

# name|model file|dtype
catalogue=(
  "vww_96_int8|$models/tflite/vww_96_int8.tflite|int8"
  "kws_ref_model|$models/tflite/kws_ref_model.tflite|int8"
  "resnet8|$models/tflite/pretrainedResnet_quant.tflite|int8"
  "ad01_int8|$models/tflite/ad01_int8.tflite|int8"
  "str_ww_ref_model|$models/tflite/str_ww_ref_model.tflite|int8"
  "person_detect|$models/tflite-micro/person_detect.tflite|int8"
  "mobilenet_v2_035_qdq|$models/onnx/mobilenet_v2_035_96_2cls_qdq.onnx|int8"
  "vww_96_float|$models/tflite/vww_96_float.tflite|float32"
)

# The cross-built runtime for a board's core, with CMSIS-NN when the tree is known.
cross_dir() {
  case $1 in
    mps2-an386) echo "$src/build-cortex-m" ;;
    mps3-an547) echo "$src/build-cortex-m55" ;;
    mps2-an500) echo "$src/build-cortex-m7" ;;
  esac
}
cpu_of() {
  case $1 in mps2-an386) echo cortex-m4 ;; mps3-an547) echo cortex-m55 ;; mps2-an500) echo cortex-m7 ;;
    *) echo "Error: unknown board '$1'" >&2; exit 2 ;; esac
}

# Flash of firmware FW (built in EXAMPLE from LIST) linked against a runtime built with the trim
# defines of its generated core: the cross build is shared by the firmware with the same defines.
trimmed_flash() {  # BOARD CPU EXAMPLE LIST FW PLAN INPUT
  local board=$1 cpu=$2 example=$3 list=$4 fw=$5 plan=$6 input=$7
  local defs key rt out
  mkdir -p "$work/trim"
  defs=$(sed -n '/ \*   trim /,/ \*   format /p' "$example/$fw/model.c" | grep -o -- '-DTIGRIS_[A-Z0-9_]*\(=[A-Z0-9_,]*\)\?' | sed 's/^-D//' | paste -sd';' -)
  # Keyed by the defines and the runtime's sources, so a source change rebuilds it.
  key=$( (printf '%s' "$defs"; find "$src/runtime" "$src/cmake" -type f | sort | xargs cat) | md5sum | cut -c1-10)
  rt=$work/trim/$board-$key
  if [ ! -f "$rt/lib/libtigris_runtime.a" ]; then
    cmake -S "$src" -B "$rt" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" -DTIGRIS_CORTEX_M_CPU="$cpu" \
      -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF -DTIGRIS_CMSIS_NN_DIR="$cmsis" \
      -DTIGRIS_RUNTIME_DEFINES="$defs" >"$rt.log" 2>&1 && cmake --build "$rt" -j 2 >>"$rt.log" 2>&1 || return 1
  fi
  out=$work/trim/$board-$fw
  grep "^$fw " "$list" >"$out.list"
  cmake -S "$src/examples/cortex-m" -B "$out" -DTIGRIS_BOARD="$board" -DTIGRIS_HOST_BIN="$host/bin" \
    -DTIGRIS_RUNTIME_ARCHIVE="$rt/lib/libtigris_runtime.a" -DTIGRIS_MODELS_DIR="$models" \
    -DTIGRIS_FIRMWARE_LIST="$out.list" >"$out.log" 2>&1 && cmake --build "$out" -j 2 >>"$out.log" 2>&1 || return 1
  local image
  image=$(arm-none-eabi-size -A "$out/$fw.elf" | awk '$1 == ".vectors" || $1 == ".text" || $1 == ".ARM.exidx" || $1 == ".data" {s += $2} END {print s}')
  echo $((image - plan - input))
}

rows=()
refusals=()
for board in $boards; do
  cpu=$(cpu_of "$board")
  cross=$(cross_dir "$board")
  if [ ! -f "$cross/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$cross" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" -DTIGRIS_CORTEX_M_CPU="$cpu" \
      -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF -DTIGRIS_CMSIS_NN_DIR="$cmsis" >/dev/null
  fi
  targets=(tigris_runtime)
  grep -q '^TIGRIS_CMSIS_NN_DIR:PATH=.\+' "$cross/CMakeCache.txt" && targets+=(cmsis-nn)
  cmake --build "$cross" -j 2 --target "${targets[@]}" >"$work/cross-$board.log" 2>&1 ||
    { cat "$work/cross-$board.log" >&2; exit 1; }
  backends="reference"
  [ -f "$cross/lib/libcmsis-nn.a" ] && backends="reference cmsis-nn"

  # 1. The firmware list: every model at both budgets and on every backend.
  list=$work/$board.list
  : >"$list"
  : >"$work/$board.meta"
  for entry in "${catalogue[@]}"; do
    IFS='|' read -r name model dtype <<<"$entry"
    [ -z "$only" ] || [ "$only" = "$name" ] || continue
    [ -f "$model" ] || { refusals+=("$name: $model is absent"); continue; }
    macs=$("$tigris" inspect --json "$model" 2>/dev/null | sed -n 's/^  "macs": \([0-9]*\),$/\1/p' || true)
    floor=$("$tigris" analyze "$model" -m 1K+64M --json 2>/dev/null |
      awk '/"minimum_for_partition_bytes"/ {gsub(/[^0-9]/, ""); print; exit}' || true)
    if ! "$tigris" compile "$model" -m 4M+64M -o "$work/probe.tgrs" >"$work/probe.log" 2>&1; then
      refusals+=("$name: $(grep -m1 -E 'Error|cannot' "$work/probe.log")")
      continue
    fi
    budgets="4M"
    [ -n "$floor" ] && [ "$floor" -gt 0 ] && budgets="4M $floor"
    model_backends=$backends
    [ "$dtype" = "int8" ] || model_backends=reference
    for budget in $budgets; do
      for backend in $model_backends; do
        fw="${name}_${budget}_${backend//-/}"
        echo "$fw $model $budget+64M $backend" >>"$list"
        echo "$fw $name $budget $backend ${macs:-0}" >>"$work/$board.meta"
      done
    done
  done

  # 2. Build them (examples/cortex-m with this list).
  example=$work/$board
  cmake -S "$src/examples/cortex-m" -B "$example" -DTIGRIS_BOARD="$board" -DTIGRIS_HOST_BIN="$host/bin" \
    -DTIGRIS_RUNTIME_ARCHIVE="$cross/lib/libtigris_runtime.a" -DTIGRIS_MODELS_DIR="$models" \
    -DTIGRIS_FIRMWARE_LIST="$list" >"$work/$board.configure.log" 2>&1 || { cat "$work/$board.configure.log" >&2; exit 1; }
  cmake --build "$example" -j 2 -- -k >"$work/$board.build.log" 2>&1 || true

  # 3. Run each under -icount shift=0.
  while read -r fw name budget backend macs; do
    elf=$example/$fw.elf
    if [ ! -f "$elf" ]; then
      refusals+=("$name at $budget ($backend, $board): $(grep -m1 '^Error' "$example/$fw/"*.log 2>/dev/null || echo "did not build (see $work/$board.build.log)")")
      continue
    fi
    out=$example/$fw/qemu-icount.txt
    status=0
    timeout 600 qemu-system-arm -M "$board" -icount shift=0 -nographic -semihosting -monitor none -serial none \
      -kernel "$elf" >"$out" 2>&1 || status=$?
    instr=$(sed -n 's/^instructions \([0-9]*\) .*/\1/p' "$out")
    if [ "$status" -ne 0 ] || [ -z "$instr" ]; then
      refusals+=("$name at $budget ($backend, $board): $(head -c 300 "$out" | tr '\n' ' ')")
      continue
    fi
    # A figure counts only for a run that computed the right bytes: the host runtime on the same
    # plan and input bytes (stored axis order, as the firmware passes them) must print the same.
    host_out=$example/$fw/host_output.bin
    rm -f "$host_out"
    "$tigris" run "$example/$fw/model.tgrs" --input "$example/$fw/model_input.bin" --stored-order \
      --output "$host_out" >"$example/$fw/host_run.txt" 2>&1 || true
    got=$(sed -n 's/^output 0 \([0-9a-f]*\)$/\1/p' "$out")
    expected=$( [ -f "$host_out" ] && od -An -v -tx1 "$host_out" | tr -d ' \n' || true)
    if [ -z "$expected" ] || [ "$got" != "$expected" ]; then
      refusals+=("$name at $budget ($backend, $board): output bytes $got differ from the host run's ${expected:-(none)}")
      continue
    fi
    fast=$(sed -n 's/^fast arena peak \([0-9]*\) .*/\1/p' "$out")
    slow=$(sed -n 's/^slow arena peak \([0-9]*\) .*/\1/p' "$out")
    plan=$(stat -c %s "$example/$fw/model.tgrs")
    input=$(stat -c %s "$example/$fw/model_input.bin")
    # text + data of the image (data is copied from flash), less the embedded plan and input.
    image=$(arm-none-eabi-size -A "$elf" | awk '$1 == ".vectors" || $1 == ".text" || $1 == ".ARM.exidx" || $1 == ".data" {s += $2} END {print s}')
    flash=$((image - plan - input))
    trimmed=-
    if [ "$trim" -eq 1 ]; then
      trimmed=$(trimmed_flash "$board" "$cpu" "$example" "$list" "$fw" "$plan" "$input") || trimmed=-
    fi
    rows+=("$name|$budget|$backend|$board|$instr|$macs|$fast|$slow|$plan|$flash|$trimmed")
  done <"$work/$board.meta"
done

budget_label() { [ "$1" = "4M" ] && echo "untiled" || echo "$1"; }
if [ "$json" -eq 1 ]; then
  printf '['
  sep=""
  for r in "${rows[@]}"; do
    IFS='|' read -r name budget backend board instr macs fast slow plan flash trimmed <<<"$r"
    b=$( [ "$budget" = "4M" ] && echo '"untiled"' || echo "$budget" )
    m=$( [ "$macs" -gt 0 ] && echo "$macs" || echo null )
    t=$( [ "$trimmed" = "-" ] && echo null || echo "$trimmed" )
    printf '%s\n  {"model": "%s", "budget": %s, "kernels": "%s", "board": "%s", "instructions": %s, "macs": %s, "fast_peak": %s, "slow_peak": %s, "plan_bytes": %s, "flash_bytes": %s, "trimmed_flash_bytes": %s}' \
      "$sep" "$name" "$b" "$backend" "$board" "$instr" "$m" "$fast" "$slow" "$plan" "$flash" "$t"
    sep=","
  done
  printf '\n]\n'
else
  echo "bench-device: instructions per inference under qemu-system-arm -icount shift=0 (1 instruction = 1 ns of"
  echo "virtual time; SysTick read around model_run); flash = firmware text+data without plan and input; trimmed = the same"
  echo "with the runtime built for the plan (--trim: codegen's trim defines)"
  printf '%-22s %-8s %-10s %-11s %13s %9s %9s %9s %9s %9s %9s\n' model budget kernels board instructions instr/MAC fast_peak slow_peak plan flash trimmed
  for r in "${rows[@]}"; do
    IFS='|' read -r name budget backend board instr macs fast slow plan flash trimmed <<<"$r"
    per=$( [ "$macs" -gt 0 ] && awk -v i="$instr" -v m="$macs" 'BEGIN {printf "%.2f", i / m}' || echo "?" )
    printf '%-22s %-8s %-10s %-11s %13s %9s %9s %9s %9s %9s %9s\n' "$name" "$(budget_label "$budget")" "$backend" "$board" \
      "$instr" "$per" "$fast" "$slow" "$plan" "$flash" "$trimmed"
  done
  # The ratio that the kernel work is judged by: reference int8 over CMSIS-NN, same plan.
  echo
  echo "reference / CMSIS-NN instructions (same model, budget and board):"
  for r in "${rows[@]}"; do
    IFS='|' read -r name budget backend board instr _ <<<"$r"
    [ "$backend" = "reference" ] || continue
    for q in "${rows[@]}"; do
      IFS='|' read -r n2 b2 k2 bo2 i2 _ <<<"$q"
      if [ "$n2" = "$name" ] && [ "$b2" = "$budget" ] && [ "$bo2" = "$board" ] && [ "$k2" = "cmsis-nn" ]; then
        printf '  %-22s %-8s %-11s %6.2fx\n' "$name" "$(budget_label "$budget")" "$board" "$(awk -v a="$instr" -v b="$i2" 'BEGIN {print a / b}')"
      fi
    done
  done
fi
if [ ${#refusals[@]} -gt 0 ]; then
  for r in "${refusals[@]}"; do echo "not measured: $r" >&2; done
fi
