#!/usr/bin/env bash
# Worst-case stack use of every runtime entry point on the Cortex-M4, from the compiler's own
# figures: the runtime (and CMSIS-NN, when given) is cross-built with -fcallgraph-info=su (GCC's
# -fstack-usage plus the call graph), and each public function's figure is its own frame plus
# the deepest chain of callees. Indirect calls are taken to reach the deepest of the kernel
# dispatchers and kernels (what the executor and the int8 dispatcher call through pointers).
# Calls into the C library (memcpy, memset, libm) are counted as 0 bytes and listed.
#
#   scripts/stack-usage.sh [BUILD_DIR] [CMSIS_NN_DIR]    (default build-stack, no CMSIS-NN)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/build-stack}
cmsis=${2:-}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF -DTIGRIS_CMSIS_NN_DIR="$cmsis" \
    -DCMAKE_C_FLAGS=-fcallgraph-info=su -DCMAKE_CXX_FLAGS=-fcallgraph-info=su >/dev/null
fi
targets=(tigris_runtime)
grep -q '^TIGRIS_CMSIS_NN_DIR:PATH=.\+' "$dir/CMakeCache.txt" && targets+=(cmsis-nn)
cmake --build "$dir" -j 2 --target "${targets[@]}" >"$dir/stack-build.log" 2>&1 || { cat "$dir/stack-build.log"; exit 1; }

find "$dir" -name '*.ci' -print0 | xargs -0 cat | awk '
  /^node:/ {
    t = $0; sub(/.*title: "/, "", t); sub(/".*/, "", t)
    l = $0; sub(/.*label: "/, "", l); sub(/".*/, "", l)
    n = split(l, parts, /\\n/)
    if (n >= 3 && parts[3] ~ /bytes/) { split(parts[3], w, " "); self[t] = w[1] + 0; kind[t] = parts[3]; name[t] = parts[1]; defined[t] = 1 }
    else if (!(t in defined)) { external[t] = 1 }
    next
  }
  /^edge:/ {
    s = $0; sub(/.*sourcename: "/, "", s); sub(/".*/, "", s)
    d = $0; sub(/.*targetname: "/, "", d); sub(/".*/, "", d)
    if (!((s SUBSEP d) in seen)) { seen[s, d] = 1; adj[s] = adj[s] " " d }
    next
  }
  function is_kernel(f) { return f ~ /^tigris_dispatch_kernel/ || f ~ /4kern4CallE$/ }
  function depth(f,    i, n, ts, best, d, t, a) {
    if (f in memo) return memo[f]
    if (f == "__indirect_call") {
      if (in_indirect) return 0
      in_indirect = 1; best = 0
      for (t in defined) if (is_kernel(t)) { d = depth(t); if (d > best) { best = d; via[f] = t } }
      in_indirect = 0; memo[f] = best; return best
    }
    if (!(f in defined) && f ~ /[CD]1E/) { a = f; sub(/C1E/, "C2E", a); sub(/D1E/, "D2E", a); if (a in defined) f = a }
    if (f in onstack) { recursive[f] = 1; return 0 }
    if (!(f in defined)) { if (f in external) libc[f] = 1; memo[f] = 0; return 0 }
    onstack[f] = 1; best = 0
    n = split(adj[f], ts, " ")
    for (i = 1; i <= n; i++) { d = depth(ts[i]); if (d > best) { best = d; via[f] = ts[i] } }
    delete onstack[f]
    memo[f] = self[f] + best
    return memo[f]
  }
  function chain(f,    out, k) {
    out = ""; k = 0
    while (f != "" && k < 40) { out = out (k ? " > " : "") (f in name ? name[f] : f); f = (f in via) ? via[f] : ""; k++ }
    return out
  }
  END {
    for (t in defined) if (t ~ /^tigris_/ && t !~ /^_Z/) entries[t] = 1
    for (t in entries) printf "%7d  %s\n", depth(t), t | "sort -k2"
    close("sort -k2")
    for (t in kind) if (kind[t] !~ /static/) dyn = dyn " " t
    print ""
    print "deepest chain of tigris_run: " chain("tigris_run")
    nl = 0; for (t in libc) { ll = ll " " t; nl++ }
    print "C library calls counted as 0 bytes:" ll
    nr = 0; for (t in recursive) { rr = rr " " t; nr++ }
    print (nr ? "recursive (counted once):" rr : "no recursion")
    print (dyn != "" ? "frames not static (dynamic or bounded):" dyn : "every frame is static")
  }'
