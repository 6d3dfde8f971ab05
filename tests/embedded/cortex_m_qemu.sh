#!/usr/bin/env bash
# Build the Cortex-M example (examples/cortex-m) for one QEMU board with arm-none-eabi-gcc, run
# every firmware under qemu-system-arm with semihosting, and compare the output bytes each
# prints with what the host runtime gives for the same plan and input (`tigris run`): the
# reference kernels and CMSIS-NN (when CMSIS_NN_DIR is given) must both match it.
# Also checks that no firmware contains or references an allocator, and that the board's
# archives reference no heap, exception or RTTI symbol (scripts/check-no-heap.sh). On the
# Cortex-M4, a runtime built with the kws plan's trim defines runs kws and refuses a banded plan.
#
#   cortex_m_qemu.sh SOURCE_DIR HOST_BUILD_DIR MODELS_DIR BOARD CROSS_DIR [CMSIS_NN_DIR]
#     BOARD      mps2-an386 (Cortex-M4), mps2-an500 (Cortex-M7), mps3-an547 (Cortex-M55)
#     CROSS_DIR  the runtime cross-built for the board's core (configured here when absent)
#
# Exit 77 (skipped) only when the cross compiler or QEMU is absent.
set -euo pipefail
src=$1
host=$2
models=$3
board=$4
cross=$5
cmsis=${6:-}

for tool in arm-none-eabi-gcc arm-none-eabi-nm qemu-system-arm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed (make test installs gcc-arm-none-eabi and qemu-system-arm)"
    exit 77
  fi
done
case $board in
  mps2-an386) cpu=cortex-m4 ;;
  mps2-an500) cpu=cortex-m7; cmsis="" ;;  # the Cortex-M7 board checks the reference path
  mps3-an547) cpu=cortex-m55 ;;
  *) echo "FAIL: unknown board $board"; exit 1 ;;
esac
if [ -z "$cmsis" ]; then
  echo "note: no CMSIS-NN tree given; $board runs the reference kernels only"
fi

# The runtime archive for the board's core (a no-op when it is up to date).
if [ ! -f "$cross/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$cross" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" -DTIGRIS_CORTEX_M_CPU=$cpu \
    -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF \
    -DTIGRIS_CMSIS_NN_DIR="$cmsis" -DCMAKE_C_COMPILER_LAUNCHER="${TIGRIS_COMPILER_LAUNCHER:-}" -DCMAKE_CXX_COMPILER_LAUNCHER="${TIGRIS_COMPILER_LAUNCHER:-}" >/dev/null
fi
targets=(tigris_runtime)
grep -q '^TIGRIS_CMSIS_NN_DIR:PATH=.\+' "$cross/CMakeCache.txt" && targets+=(cmsis-nn)
cmake --build "$cross" -j 2 --target "${targets[@]}" >"$cross/build.log" 2>&1 || { cat "$cross/build.log"; exit 1; }

example=$host/cortex-m-example-$board
cmake -S "$src/examples/cortex-m" -B "$example" -DTIGRIS_BOARD="$board" -DTIGRIS_HOST_BIN="$host/bin" \
  -DTIGRIS_RUNTIME_ARCHIVE="$cross/lib/libtigris_runtime.a" -DTIGRIS_MODELS_DIR="$models" >"$example.configure.log" \
  || { cat "$example.configure.log"; exit 1; }
cmake --build "$example" -j 2 >"$example/build.log" 2>&1 || { cat "$example/build.log"; exit 1; }

failed=0

# The board's archives (the runtime with its adapter, CMSIS-NN's) reference no heap,
# exception or RTTI symbol.
for archive in "$cross/lib/libtigris_runtime.a" "$cross/lib/libcmsis-nn.a"; do
  [ -f "$archive" ] || continue
  "$src/scripts/check-no-heap.sh" "$archive" || failed=1
done

# The heap is forbidden at link time: a program that calls malloc must not link with the
# example's start-up and linker script, even when it supplies its own _sbrk.
probe=$example/heap-probe
mkdir -p "$probe"
printf '#include <stdlib.h>\nint main(void) { char *volatile p = malloc(16); free(p); return 0; }\n' >"$probe/malloc.c"
printf '#include <stdlib.h>\nvoid *_sbrk(int n) { (void)n; return 0; }\nint main(void) { char *volatile p = malloc(16); free(p); return 0; }\n' >"$probe/sbrk.c"
ld=$src/examples/cortex-m/${board//-/_}.ld
for program in malloc sbrk; do
  if arm-none-eabi-gcc -mcpu=$cpu -mthumb -mfloat-abi=hard -Os -nostartfiles -DBOARD_CLOCK_HZ=1u \
      -I"$src/examples/cortex-m" -L"$src/examples/cortex-m" -T"$ld" -Wl,--gc-sections \
      "$probe/$program.c" "$src/examples/cortex-m/startup.c" "$src/examples/cortex-m/semihost.c" \
      "$src/examples/cortex-m/counter.c" -o "$probe/$program.elf" >"$probe/$program.log" 2>&1; then
    echo "FAIL heap probe: a program calling malloc ($program.c) linked"
    failed=1
  elif ! grep -q 'the heap is forbidden' "$probe/$program.log"; then
    echo "FAIL heap probe: $program.c failed to link for another reason:"
    cat "$probe/$program.log"
    failed=1
  else
    echo "OK heap probe: $program.c refused at link time (the heap is forbidden)"
  fi
done

ran=0
forbidden='^(malloc|free|calloc|realloc|_malloc_r|_free_r|_calloc_r|_realloc_r|_sbrk|_sbrk_r)$'
while read -r name backend; do
  [ -n "$name" ] || continue
  elf=$example/$name.elf
  dir=$example/$name
  # 1. No allocator in the image, defined or referenced.
  heap=$(arm-none-eabi-nm "$elf" | awk '{print $NF}' | grep -E "$forbidden" || true)
  if [ -n "$heap" ]; then
    echo "FAIL $name: the firmware contains heap symbols: $heap"
    failed=1
    continue
  fi
  # 2. The host run of the same plan and input bytes (reference kernels).
  rm -f "$dir/host_output.bin"
  "$host/bin/tigris" run "$dir/model.tgrs" --input "$dir/model_input.bin" --stored-order \
    --output "$dir/host_output.bin" >"$dir/host_run.txt"
  expected=$(od -An -v -tx1 "$dir/host_output.bin" | tr -d ' \n')
  # 3. The firmware under QEMU.
  status=0
  timeout 120 qemu-system-arm -M "$board" -nographic -semihosting -monitor none -serial none \
    -kernel "$elf" >"$dir/qemu.txt" 2>&1 || status=$?
  got=$(sed -n 's/^output 0 \([0-9a-f]*\)$/\1/p' "$dir/qemu.txt")
  if [ "$status" -ne 0 ] || [ -z "$got" ]; then
    echo "FAIL $name ($backend): QEMU exited with status $status"
    cat "$dir/qemu.txt"
    failed=1
  elif [ "$got" != "$expected" ]; then
    echo "FAIL $name ($backend): output bytes differ from the host run"
    echo "  qemu: $got"
    echo "  host: $expected"
    failed=1
  else
    ran=$((ran + 1))
    echo "OK $name ($backend, $board): $(( ${#got} / 2 )) output bytes identical to the host run; $(grep -E '^(fast|slow|stages)' "$dir/qemu.txt" | paste -sd ';' -)"
  fi
done <"$example/firmwares.txt"
# A runtime built for one plan (the `trim` defines codegen writes, docs/firmware.md), on the
# Cortex-M4: the untiled kws firmware linked against it gives the host's bytes, and the banded
# vww_floor plan (the same kernel families; TIGRIS_ONLY_OPS lists the union of both plans' ops,
# as a firmware running both would) is refused with FEATURE_DISABLED at load.
trim_line() { sed -n '/ \*   trim /,/ \*   format /p' "$1"; }
only_ops() { trim_line "$1" | grep -o -- '-DTIGRIS_ONLY_OPS=[A-Z0-9_,]*' | sed 's/^-DTIGRIS_ONLY_OPS=//' | tr ',' '\n'; }
if [ "$board" = mps2-an386 ] && [ -f "$example/kws/model.c" ] && [ -f "$example/vww_floor/model.c" ]; then
  defs=$(trim_line "$example/kws/model.c" | grep -o -- '-DTIGRIS_[A-Z0-9_]*' | grep -v '^-DTIGRIS_ONLY_OPS$' | sed 's/^-D//' | paste -sd';' -)
  case ";$defs;" in
    *";TIGRIS_NO_BANDS;"*) ;;
    *) echo "FAIL trimmed: the kws plan's trim line has no TIGRIS_NO_BANDS: $defs"; failed=1 ;;
  esac
  ops=$({ only_ops "$example/kws/model.c"; only_ops "$example/vww_floor/model.c"; } | sort -u | paste -sd, -)
  if [ -z "$(only_ops "$example/kws/model.c")" ]; then
    echo "FAIL trimmed: the kws plan's trim line has no TIGRIS_ONLY_OPS"; failed=1
  fi
  defs="$defs;TIGRIS_ONLY_OPS=$ops"
  trimmed_rt=$host/cortex-m-trimmed-runtime
  trimmed=$host/cortex-m-example-trimmed
  printf 'kws %s 64K+1M reference\nvww_floor %s 512+1M reference\n' "$models/tflite/kws_ref_model.tflite" \
    "$models/tflite/vww_96_int8.tflite" >"$trimmed.list"
  if ! { cmake -S "$src" -B "$trimmed_rt" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" -DTIGRIS_CORTEX_M_CPU=$cpu \
           -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF -DTIGRIS_CMSIS_NN_DIR= \
           -DTIGRIS_RUNTIME_DEFINES="$defs" -DCMAKE_C_COMPILER_LAUNCHER="${TIGRIS_COMPILER_LAUNCHER:-}" \
           -DCMAKE_CXX_COMPILER_LAUNCHER="${TIGRIS_COMPILER_LAUNCHER:-}" >"$trimmed.log" 2>&1 &&
         cmake --build "$trimmed_rt" -j 2 --target tigris_runtime >>"$trimmed.log" 2>&1 &&
         cmake -S "$src/examples/cortex-m" -B "$trimmed" -DTIGRIS_BOARD="$board" -DTIGRIS_HOST_BIN="$host/bin" \
           -DTIGRIS_RUNTIME_ARCHIVE="$trimmed_rt/lib/libtigris_runtime.a" -DTIGRIS_MODELS_DIR="$models" \
           -DTIGRIS_FIRMWARE_LIST="$trimmed.list" >>"$trimmed.log" 2>&1 &&
         cmake --build "$trimmed" -j 2 >>"$trimmed.log" 2>&1; }; then
    echo "FAIL trimmed: the runtime or firmware built for the kws plan did not build"
    cat "$trimmed.log"
    failed=1
  else
    rm -f "$trimmed/kws/host_output.bin"  # tigris run never overwrites a file: a rerun starts clean
    "$host/bin/tigris" run "$trimmed/kws/model.tgrs" --input "$trimmed/kws/model_input.bin" --stored-order \
      --output "$trimmed/kws/host_output.bin" >"$trimmed/kws/host_run.txt"
    expected=$(od -An -v -tx1 "$trimmed/kws/host_output.bin" | tr -d ' \n')
    status=0
    timeout 120 qemu-system-arm -M "$board" -nographic -semihosting -monitor none -serial none \
      -kernel "$trimmed/kws.elf" >"$trimmed/kws/qemu.txt" 2>&1 || status=$?
    got=$(sed -n 's/^output 0 \([0-9a-f]*\)$/\1/p' "$trimmed/kws/qemu.txt")
    if [ "$status" -ne 0 ] || [ "$got" != "$expected" ]; then
      echo "FAIL trimmed kws: status $status, output '$got', host '$expected'"
      failed=1
    else
      echo "OK trimmed kws ($board): output bytes identical to the host run with a runtime built for the plan"
    fi
    status=0
    timeout 120 qemu-system-arm -M "$board" -nographic -semihosting -monitor none -serial none \
      -kernel "$trimmed/vww_floor.elf" >"$trimmed/vww_floor/qemu.txt" 2>&1 || status=$?
    if [ "$status" -ne 0 ] && grep -q '^error: this build leaves out a runtime feature' "$trimmed/vww_floor/qemu.txt" &&
       ! grep -q '^output' "$trimmed/vww_floor/qemu.txt"; then
      echo "OK trimmed vww_floor ($board): the banded plan is refused by a runtime built without bands"
    else
      echo "FAIL trimmed vww_floor: expected a FEATURE_DISABLED refusal, got status $status:"
      cat "$trimmed/vww_floor/qemu.txt"
      failed=1
    fi
  fi
fi

if [ "$ran" -eq 0 ]; then
  echo "FAIL: no firmware ran"
  failed=1
fi
exit $failed
