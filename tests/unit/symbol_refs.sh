# Sourced by the object checks (loader_kernel_set/check_trimmed.sh, no_features/check_features.sh):
# `absent OBJECT SYMBOL...` and `present OBJECT SYMBOL...` test the undefined symbols an object
# references (demangled, matched up to the parameter list) and set status=1 with a FAIL line.
status=0
refs() { nm -C -u "$1" | sed 's/^ *U //'; }
absent() {
  obj=$1; shift
  for sym in "$@"; do
    if refs "$obj" | grep -q "^$sym("; then echo "FAIL: $(basename "$obj") references $sym"; status=1; fi
  done
}
present() {
  obj=$1; shift
  for sym in "$@"; do
    if ! refs "$obj" | grep -q "^$sym("; then echo "FAIL: $(basename "$obj") no longer references $sym"; status=1; fi
  done
}
