#!/usr/bin/env bash
# Fail when a runtime archive references heap, exception or RTTI symbols.
#   check-no-heap.sh [--nm NM] [--optional] [--allow-member MEMBER]... ARCHIVE
#     --nm NM               the nm to read the archive with (default arm-none-eabi-nm)
#     --optional            skip (77) instead of failing when ARCHIVE does not exist
#     --allow-member NAME   an archive member exempt from the heap rule (not from the exception
#                           and RTTI rules): the ESP-NN adapter's platform allocator, which is
#                           documented to allocate (docs/backends.md §3.2)
set -u
nm_tool=arm-none-eabi-nm
optional=0
allowed=()
while [ $# -gt 1 ]; do
  case $1 in
    --nm) nm_tool=$2; shift 2 ;;
    --optional) optional=1; shift ;;
    --allow-member) allowed+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
archive=$1
if ! command -v "$nm_tool" >/dev/null 2>&1; then
  echo "SKIPPED: $nm_tool is not installed (the cross compiler is absent); make test installs it"
  exit 77
fi
if [ ! -f "$archive" ]; then
  if [ "$optional" -eq 1 ]; then
    echo "SKIPPED: $archive does not exist (built only when the build has the library)"
    exit 77
  fi
  echo "FAIL: $archive does not exist; build it with 'make cortex-m'"
  exit 1
fi
heap='malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|_malloc_r|_calloc_r|_realloc_r|_free_r|_Zn[wa][jm]|_Zn[wa][jm]RKSt9nothrow_t|_Zn[wa][jm]St11align_val_t|_Zd[la]Pv|_Zd[la]Pv[jm]|_Zd[la]PvSt11align_val_t'
cxx='__cxa_.*|__gxx_personality_v0|_Unwind_.*|__aeabi_unwind_cpp_pr[0-9]|_ZTI.*|_ZTS.*|_ZTV.*|__dynamic_cast'
# Undefined symbols each member needs from elsewhere, as "member symbol".
undefined=$("$nm_tool" -A -u "$archive" 2>/dev/null | awk '{m=$1; sub(/:[^:]*$/, "", m); sub(/^.*:/, "", m); print m, $NF}' | sort -u)
bad=$(printf '%s\n' "$undefined" | awk -v heap="^($heap)$" -v cxx="^($cxx)$" -v allowed="${allowed[*]:-}" '
  BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) exempt[a[i]] = 1 }
  NF == 2 && ($2 ~ cxx || ($2 ~ heap && !($1 in exempt))) { print $1 ": " $2 }')
[ -n "$bad" ] && bad+=$'\n'
# Defined RTTI or exception tables are just as bad.
defined=$("$nm_tool" --defined-only "$archive" 2>/dev/null | awk 'NF>=3 {print $3}' | grep -E '^(_ZTI|_ZTS|__gxx_personality)' || true)
if [ -n "$bad$defined" ]; then
  echo "FAIL: $archive references forbidden symbols:"
  printf '%s' "$bad" | sed 's/^/  /'
  [ -n "$defined" ] && printf '  %s\n' $defined
  exit 1
fi
count=$("$nm_tool" --defined-only "$archive" | grep -c ' T ' || true)
note=""
[ ${#allowed[@]} -gt 0 ] && note=" (exempt from the heap rule: ${allowed[*]})"
echo "OK: $archive defines $count functions and references no heap, exception or RTTI symbols$note"
