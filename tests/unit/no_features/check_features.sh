#!/bin/sh
# check_features.sh PATH_SELECT.o LOADER_STAGES.o LOADER_SEMANTICS.o WEIGHTS.o: objects compiled
# with TIGRIS_NO_BANDS, TIGRIS_NO_CONTROL_FLOW and TIGRIS_NO_WEIGHT_BLOCKS reference no band
# path, chain, band rule, the control-flow path or the LZ4 decoder, and still reference what
# every build needs (the normal path).
set -u
path=$1 stages=$2 semantics=$3 weights=$4
. "$(dirname "$0")/../symbol_refs.sh"
absent "$path" tigris_rt::run_stage_stripe tigris_rt::run_stage_tiled_2d tigris_rt::run_stage_by_input \
  tigris_rt::run_stage_rows tigris_rt::run_stage_concat tigris_rt::run_stage_channels tigris_rt::run_chain \
  tigris_rt::run_stage_control tigris_stage_band_kind
present "$path" tigris_rt::run_stage_normal
absent "$stages" tigris_rt::stage_band tigris_rt::chain_op tigris_rt::op_axes_outside
absent "$semantics" tigris_rt::check_tile_band tigris_rt::check_chain_band tigris_rt::stage_band tigris_stage_tile_facts
present "$semantics" tigris_rt::check_operator
absent "$weights" tigris_rt::lz4_decode_block
[ $status -eq 0 ] && echo "OK: left-out features are not referenced"
exit $status
