#!/bin/sh
# check_matmul.sh DEFAULT.o NO_MATMUL.o: the int8 conv kernels' object references the matrix
# product of 1x1 convolutions and fully connected layers (s8_matmul.h) in a default build and not
# in one compiled with TIGRIS_NO_FAST_MATMUL (so the linker leaves it out).
set -u
default=$1 no_matmul=$2
. "$(dirname "$0")/../symbol_refs.sh"
present "$default" tigris_s8::mm::run
absent "$no_matmul" tigris_s8::mm::run
[ $status -eq 0 ] && echo "OK: the matrix product is referenced only without the switch"
exit $status
