// Executor workspace: the caller-owned working storage of one run, carved into regions.
//
// Layout (in this order, so each region starts aligned for its element type once the
// first one is pointer-aligned):
//   pointers  stage_in[stage_inputs]     slow pointers of the stage inputs a stage loaded
//             stage_out[stage_outputs]   full slow buffers of banded stage outputs
//             chain_ptrs[2 * chain]      chain head inputs / last-stage outputs
//             frame_ptrs[2 * depth]      control-flow frames
//   int32     chain_info[14 * chain]     per chained stage geometry
//             op_geom[16 * chain * spatial]  per chained spatial op geometry
//             roll[2 * tensors]          line-buffer row ranges
//             frames[16 * depth]         control-flow frame state
//   uint16    last_stage[tensors]        last stage that uses each tensor (0xFFFF = kept)
//             last_op[tensors]           within a stage: position of the last op reading it
// plus TIGRIS_EXECUTOR_WORKSPACE_SLACK bytes so the buffer may start at any address.
// The formula is the one of TIGRIS_EXECUTOR_WORKSPACE_MIN_BYTES in tigris_executor.h,
// which applies it to the build's TIGRIS_MAX_* limits.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "tigris.h"
#include "tigris_executor.h"

namespace tigris_rt {

struct WorkspaceCounts {
    uint32_t stage_inputs;
    uint32_t stage_outputs;
    uint32_t chain_stages;  // longest chain, 0 without chains
    uint32_t spatial_ops;   // most spatial ops in one chained stage, 0 without chains
    uint32_t tensors;
    uint32_t depth;  // deepest control-flow nesting, 0 without control flow
};

constexpr size_t kWorkspaceSlack = 64;

constexpr size_t workspace_bytes(const WorkspaceCounts &c)
{
    return sizeof(void *) *
               ((size_t)c.stage_inputs + c.stage_outputs + 2u * (size_t)c.chain_stages + 2u * (size_t)c.depth) +
           4u * (14u * (size_t)c.chain_stages + 16u * (size_t)c.chain_stages * c.spatial_ops + 2u * (size_t)c.tensors +
                 16u * (size_t)c.depth) +
           2u * (2u * (size_t)c.tensors) + kWorkspaceSlack;
}

static_assert(workspace_bytes(WorkspaceCounts{TIGRIS_MAX_STAGE_INPUTS, TIGRIS_MAX_STAGE_OUTPUTS,
                                              TIGRIS_MAX_CHAIN_STAGES, TIGRIS_MAX_SPATIAL_OPS_PER_STAGE,
                                              TIGRIS_MAX_TENSORS, TIGRIS_MAX_SUBGRAPH_DEPTH}) ==
                  TIGRIS_EXECUTOR_WORKSPACE_MIN_BYTES,
              "workspace layout and TIGRIS_EXECUTOR_WORKSPACE_MIN_BYTES must agree");

struct Workspace {
    void **stage_in;
    void **stage_out;
    void **chain_ptrs;
    void **frame_ptrs;
    int32_t *chain_info;
    int32_t *op_geom;
    int32_t *roll;
    int32_t *frames;
    uint16_t *last_stage;
    uint16_t *last_op;
    WorkspaceCounts counts;
};

// The counts a loaded plan needs; false when its metadata is incomplete.
bool workspace_counts(const tigris_plan_t *plan, WorkspaceCounts *out);

// Carve `buf` (any alignment) into the regions; false when it is smaller than
// workspace_bytes(counts).
bool carve_workspace(void *buf, size_t size, const WorkspaceCounts &counts, Workspace *out);

}  // namespace tigris_rt
