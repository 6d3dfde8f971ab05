#!/bin/sh
# check_only_ops.sh S8_DISPATCH.o S8_DISPATCH_INT8.o: the int8 dispatcher of a runtime built with
# TIGRIS_ONLY_OPS=CONV,RELU,GLOBAL_AVG references those ops' kernels and no other, not even the
# other ops of the kept families (POOL: MaxPool, AvgPool, GlobalMaxPool; CONV: depthwise), and
# hands other ops to the float dispatcher; built also with TIGRIS_NO_KERNEL_FLOAT32 and
# TIGRIS_NO_KERNEL_INT16 (no float kernel of a kept op left) it does not reference that one.
# OP_RULES.o: the operator check calls the rule files of Conv, GlobalAveragePool (spatial) and
# Relu (elementwise) and no other.
set -u
s8=$1
s8_int8=$2
rules=$3
. "$(dirname "$0")/../symbol_refs.sh"
present "$s8" tigris_s8::conv tigris_s8::relu tigris_s8::global_avg
absent "$s8" tigris_s8::max_pool tigris_s8::avg_pool tigris_s8::global_max tigris_s8::depthwise \
  tigris_s8::fully_connected tigris_s8::softmax tigris_s8::add tigris_s8::copy
refs "$s8" | grep -q '^tigris_dispatch_kernel$' || { echo "FAIL: $(basename "$s8") no longer calls tigris_dispatch_kernel"; status=1; }
present "$s8_int8" tigris_s8::conv tigris_s8::relu tigris_s8::global_avg
if refs "$s8_int8" | grep -q '^tigris_dispatch_kernel$'; then
  echo "FAIL: $(basename "$s8_int8") references tigris_dispatch_kernel without a float kernel"; status=1
fi
present "$rules" tigris_rt::rules::check_spatial tigris_rt::rules::check_elementwise
absent "$rules" tigris_rt::rules::check_shape_ops tigris_rt::rules::check_movement tigris_rt::rules::check_sequence \
  tigris_rt::rules::check_signal_ops
[ $status -eq 0 ] && echo "OK: only the listed ops' kernels are linked"
exit $status
