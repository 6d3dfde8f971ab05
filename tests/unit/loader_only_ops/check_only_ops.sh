#!/bin/sh
# check_only_ops.sh S8_DISPATCH.o: the int8 dispatcher of a runtime built with
# TIGRIS_ONLY_OPS=CONV,RELU,GLOBAL_AVG references those ops' kernels and no other, not even the
# other ops of the kept families (POOL: MaxPool, AvgPool, GlobalMaxPool; CONV: depthwise).
set -u
s8=$1
. "$(dirname "$0")/../symbol_refs.sh"
present "$s8" tigris_s8::conv tigris_s8::relu tigris_s8::global_avg
absent "$s8" tigris_s8::max_pool tigris_s8::avg_pool tigris_s8::global_max tigris_s8::depthwise \
  tigris_s8::fully_connected tigris_s8::softmax tigris_s8::add tigris_s8::copy
[ $status -eq 0 ] && echo "OK: only the listed ops' kernels are linked"
exit $status
