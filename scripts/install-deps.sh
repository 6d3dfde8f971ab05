#!/usr/bin/env bash
# Install the Debian packages the build, tests and demo need, only those missing.
set -euo pipefail

packages=(
  cmake make ninja-build g++ pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libflatbuffers-dev flatbuffers-compiler
  liblz4-dev libcli11-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
  python3-dev pybind11-dev python3-numpy python3-pytest python3-setuptools python3-pip
)
# Installed when the distribution has them: ONNX models as Python objects, the example's plot,
# and running its notebook in the tests (each is skipped with a message without them).
optional=(python3-onnx python3-matplotlib jupyter-nbconvert python3-ipykernel)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
missing_optional=()
for p in "${optional[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing_optional+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
available=()
for p in "${missing_optional[@]}"; do
  if apt-cache show "$p" >/dev/null 2>&1; then available+=("$p"); else echo "not available here: $p (its tests skip)"; fi
done
if [ ${#available[@]} -gt 0 ]; then
  echo "installing (optional): ${available[*]}"
  $sudo apt-get install -y -qq --no-install-recommends "${available[@]}" || echo "optional packages not installed; their tests skip"
fi
