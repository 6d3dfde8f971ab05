#!/usr/bin/env bash
# Build the Cortex-M example (examples/cortex-m) with arm-none-eabi-gcc, run every firmware
# under qemu-system-arm -M mps2-an386 with semihosting, and compare the output bytes each
# prints with what the host runtime gives for the same plan and input (`tigris run`).
# Also checks that no firmware contains or references an allocator.
#
#   cortex_m_qemu.sh SOURCE_DIR HOST_BUILD_DIR [MODELS_DIR]
#
# Exit 77 (skipped) only when the cross compiler or QEMU is absent.
set -euo pipefail
src=$1
host=$2
models=${3:-$src/../shared/models}

for tool in arm-none-eabi-gcc arm-none-eabi-nm qemu-system-arm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed (make test installs gcc-arm-none-eabi and qemu-system-arm)"
    exit 77
  fi
done

# The runtime archive as `make cortex-m` builds it (a no-op when it is up to date).
cross=$src/build-cortex-m
if [ ! -f "$cross/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$cross" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$cross" -j 2 --target tigris_runtime >/dev/null

example=$host/cortex-m-example
cmake -S "$src/examples/cortex-m" -B "$example" -DTIGRIS_HOST_BIN="$host/bin" \
  -DTIGRIS_RUNTIME_ARCHIVE="$cross/lib/libtigris_runtime.a" -DTIGRIS_MODELS_DIR="$models" >/dev/null
cmake --build "$example" -j 2 >"$example/build.log" 2>&1 || { cat "$example/build.log"; exit 1; }

failed=0

# The heap is forbidden at link time: a program that calls malloc must not link with the
# example's start-up and linker script, even when it supplies its own _sbrk.
probe=$example/heap-probe
mkdir -p "$probe"
printf '#include <stdlib.h>\nint main(void) { char *volatile p = malloc(16); free(p); return 0; }\n' >"$probe/malloc.c"
printf '#include <stdlib.h>\nvoid *_sbrk(int n) { (void)n; return 0; }\nint main(void) { char *volatile p = malloc(16); free(p); return 0; }\n' >"$probe/sbrk.c"
for program in malloc sbrk; do
  if arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os -nostartfiles \
      -I"$src/examples/cortex-m" -T"$src/examples/cortex-m/mps2_an386.ld" -Wl,--gc-sections \
      "$probe/$program.c" "$src/examples/cortex-m/startup.c" "$src/examples/cortex-m/semihost.c" \
      -o "$probe/$program.elf" >"$probe/$program.log" 2>&1; then
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
while read -r name; do
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
  # 2. The host run of the same plan and input bytes.
  rm -f "$dir/host_output.bin"
  "$host/bin/tigris" run "$dir/model.tgrs" --input "$dir/model_input.bin" --stored-order \
    --output "$dir/host_output.bin" >"$dir/host_run.txt"
  expected=$(od -An -v -tx1 "$dir/host_output.bin" | tr -d ' \n')
  # 3. The firmware under QEMU.
  status=0
  timeout 120 qemu-system-arm -M mps2-an386 -nographic -semihosting -monitor none -serial none \
    -kernel "$elf" >"$dir/qemu.txt" 2>&1 || status=$?
  got=$(sed -n 's/^output 0 \([0-9a-f]*\)$/\1/p' "$dir/qemu.txt")
  if [ "$status" -ne 0 ] || [ -z "$got" ]; then
    echo "FAIL $name: QEMU exited with status $status"
    cat "$dir/qemu.txt"
    failed=1
  elif [ "$got" != "$expected" ]; then
    echo "FAIL $name: output bytes differ from the host run"
    echo "  qemu: $got"
    echo "  host: $expected"
    failed=1
  else
    ran=$((ran + 1))
    echo "OK $name: $(( ${#got} / 2 )) output bytes identical to the host run; $(grep -E '^(fast|slow|stages)' "$dir/qemu.txt" | paste -sd ';' -)"
  fi
done <"$example/firmwares.txt"
if [ "$ran" -eq 0 ]; then
  echo "FAIL: no firmware ran"
  failed=1
fi
exit $failed
