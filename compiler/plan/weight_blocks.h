// `-c lz4`: the plan's weights regrouped per stage into one LZ4 block each (docs/plan-format.md
// §3.10): a stage's weights become contiguous entries in order of first use (a weight two
// stages use is stored in both), ops (weight, bias, CONSTANTS) are renumbered, and every
// stage with weights gets a block. The runtime decompresses a stage's block into fast memory
// while the stage runs (a chain: all its members' blocks).
#pragma once

#include "compiler/plan/plan_writer.h"

namespace tigris::plan {

// Regroup `p`'s weights per stage and describe LZ4 blocks (compression = LZ4).
void group_weights_per_stage(PlanDesc& p);

}  // namespace tigris::plan
