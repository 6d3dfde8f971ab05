#!/bin/sh
# check_trimmed.sh DISPATCH_F32.o DISPATCH_S8.o RULES_MOVEMENT.o: the objects of a runtime built
# with TIGRIS_NO_KERNEL_BINARY, _ACTIVATION, _MOVEMENT, _FLOAT32 and _INT16 reference no kernel or
# rule of those families (nor the int16 kernels), and still reference the ones the build keeps.
set -u
f32=$1 s8=$2 movement=$3
. "$(dirname "$0")/../symbol_refs.sh"
# Float32-only kernels go with FLOAT32, byte movement with MOVEMENT; a kernel that another kept
# family still needs for other dtypes stays (binary and unary for the LOGIC and MATH families'
# integer and bool data, reduce for CUMSUM and ARG_MAX, detection for its int8 inputs).
absent "$f32" tigris_rt::f32::conv tigris_rt::f32::pool tigris_rt::f32::softmax tigris_rt::f32::fully_connected \
  tigris_rt::f32::norm tigris_rt::f32::reshape tigris_rt::f32::concat_split tigris_rt::f32::gather \
  tigris_rt::f32::pad tigris_rt::f32::transpose
present "$f32" tigris_rt::f32::detection_postprocess tigris_rt::f32::cast tigris_rt::f32::reduce \
  tigris_rt::f32::binary tigris_rt::f32::unary
# INT16: the float dispatcher no longer reaches the int16 kernels, only asks whether they own an op.
absent "$f32" tigris_s16::dispatch
present "$f32" tigris_s16::owns
absent "$s8" tigris_s8::add tigris_s8::relu tigris_s8::copy tigris_s8::concat
present "$s8" tigris_s8::conv tigris_s8::softmax tigris_s8::quantize_cast
# Every movement rule is of a left-out family: the file references no rule helper at all.
if nm -C "$movement" | grep -q "check_gather\|check_pad\|check_transpose"; then
  echo "FAIL: $(basename "$movement") still holds movement rules"; status=1
fi
[ $status -eq 0 ] && echo "OK: left-out kernels and rules are not linked"
exit $status
