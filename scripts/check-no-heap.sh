#!/usr/bin/env bash
# Fail when a runtime archive references heap, exception or RTTI symbols.
set -u
archive=$1
if ! command -v arm-none-eabi-nm >/dev/null 2>&1; then
  echo "SKIPPED: arm-none-eabi-nm is not installed (the cross compiler is absent); make test installs it"
  exit 77
fi
if [ ! -f "$archive" ]; then
  echo "FAIL: $archive does not exist; build it with 'make cortex-m'"
  exit 1
fi
# Undefined symbols the archive needs from elsewhere.
undefined=$(arm-none-eabi-nm -u "$archive" | awk 'NF>=2 {print $NF}' | sort -u)
forbidden='^(malloc|calloc|realloc|free|_malloc_r|_calloc_r|_realloc_r|_free_r|_Zn[wa]j|_Zn[wa]jRKSt9nothrow_t|_Zd[la]Pv|_Zd[la]Pvj|__cxa_.*|__gxx_personality_v0|_Unwind_.*|__aeabi_unwind_cpp_pr[0-9]|_ZTI.*|_ZTS.*|_ZTV.*|__dynamic_cast)$'
bad=$(printf '%s\n' "$undefined" | grep -E "$forbidden" || true)
# Defined RTTI or exception tables are just as bad.
defined=$(arm-none-eabi-nm --defined-only "$archive" | awk 'NF>=3 {print $3}' | grep -E '^(_ZTI|_ZTS|__gxx_personality)' || true)
if [ -n "$bad$defined" ]; then
  echo "FAIL: the runtime archive references forbidden symbols:"
  printf '  %s\n' $bad $defined
  exit 1
fi
count=$(arm-none-eabi-nm --defined-only "$archive" | grep -c ' T ' || true)
echo "OK: $archive defines $count functions and references no heap, exception or RTTI symbols"
