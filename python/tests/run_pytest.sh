#!/bin/sh
# run_pytest.sh PYTHON TESTS_DIR: the Python tests, or exit 77 (skipped) with the reason when
# that interpreter has no pytest or numpy.
python="$1"
tests="$2"
if ! "$python" -c "import pytest, numpy" 2>/dev/null; then
  echo "skipped: $python has no pytest or numpy (apt-get install python3-pytest python3-numpy)"
  exit 77
fi
exec "$python" -m pytest -q -p no:cacheprovider -rs "$tests"
