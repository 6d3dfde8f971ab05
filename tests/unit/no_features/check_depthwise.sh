#!/bin/sh
# check_depthwise.sh BLOCKED.o NO_BLOCKED.o: the int8 conv kernels' object references the
# blocked multiplier-1 depthwise (s8_depthwise.h) in a default build and not in one compiled with
# TIGRIS_NO_BLOCKED_DEPTHWISE (so the linker leaves it out).
set -u
blocked=$1 no_blocked=$2
. "$(dirname "$0")/../symbol_refs.sh"
present "$blocked" tigris_s8::dw_m1::run
absent "$no_blocked" tigris_s8::dw_m1::run
[ $status -eq 0 ] && echo "OK: the blocked depthwise is referenced only without the switch"
exit $status
