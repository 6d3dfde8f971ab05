// Executor internals shared by the entry points and the stage paths.
//
// A run: the entry point checks its arguments, finds the floor (the caller's fast fill
// level, or for inputs read in place the start of the room below them), binds state,
// then run_stages() picks a path per stage (choose_path) and runs it (run_stage). Every
// path is its own file; each leaves the fast arena at the floor, its outputs in slow
// (or, for the in-place single stage, in fast) and every other tensor pointer it set
// either nulled or restored. After each stage the slow pool drops tensors whose last
// user has run and is compacted.
#pragma once

#include "exec/workspace.h"
#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_mem.h"

namespace tigris_rt {

constexpr uint16_t kKeep = 0xFFFFu;  // last_stage value of tensors kept after the run

struct RunContext {
    const tigris_plan_t *plan;
    tigris_mem_t *mem;
    tigris_kernel_fn kernel;
    void *user_ctx;
    tigris_exec_stats_t *stats;  // never NULL during a run
    Workspace ws;
    uint32_t floor;        // fast offset: caller data below, the run's working set above
    bool in_place;         // single stage reading its inputs where they were placed
    uint32_t fast_cap;     // normal stage of a schema 11 plan: allocations compact rather than
                           // rise above this fast offset (reserved + the stage's stated peak); 0 none
    uint16_t first_stage;  // the main graph's stage range
    uint16_t end_stage;
    uint16_t depth;  // If/While levels entered (control_flow.cpp), at most ws.counts.depth
};

// Execution paths (values are the trace path numbers).
enum class StagePath : uint8_t {
    Normal = TIGRIS_PATH_NORMAL,
    Stripe = TIGRIS_PATH_TILED,
    Tiled2D = TIGRIS_PATH_TILED_2D,
    ByInput = TIGRIS_PATH_BY_INPUT,
    Transpose = TIGRIS_PATH_TRANSPOSE,
    Rows = TIGRIS_PATH_ROWS,
    Reshape = TIGRIS_PATH_RESHAPE,
    Chain = TIGRIS_PATH_CHAIN,
    Control = TIGRIS_PATH_CONTROL,
    Leading = TIGRIS_PATH_LEADING,
    Channels = TIGRIS_PATH_CHANNELS,
    Concat = TIGRIS_PATH_CONCAT
};

// run_plan.cpp: the stage loop. run_stages runs the main graph; run_stage_range the
// stages [first, end) of one graph (the main graph's, or a subgraph's for If/While),
// dropping after each stage the slow tensors of that range whose last user has run.
tigris_exec_error_t run_stages(RunContext &ctx);
tigris_exec_error_t run_stage_range(RunContext &ctx, uint16_t first, uint16_t end);

// path_select.cpp: how stage s runs. TILE when its record asks for banding the runtime
// cannot do (fail closed).
tigris_exec_error_t choose_path(const RunContext &ctx, uint16_t s, StagePath *path);

// Run stage s on `path`; *consumed receives the number of stages it ran (a chain runs
// all its members).
tigris_exec_error_t run_stage(RunContext &ctx, uint16_t s, StagePath path, uint16_t *consumed);

// One function per path, each in its own file.
tigris_exec_error_t run_stage_normal(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_control(RunContext &ctx, uint16_t s);  // control_flow.cpp
tigris_exec_error_t run_stage_stripe(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_tiled_2d(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_by_input(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_transpose(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_rows(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_reshape(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_leading(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_stage_concat(RunContext &ctx, uint16_t s);  // stage_concat.cpp
tigris_exec_error_t run_stage_channels(RunContext &ctx, uint16_t s);
// CHANNELS mode INPUT (stage_input_channels.cpp): a FullyConnected summing input-column bands.
tigris_exec_error_t run_stage_input_channels(RunContext &ctx, uint16_t s);
tigris_exec_error_t run_chain(RunContext &ctx, uint16_t head, uint16_t *consumed);

// ---- stage_common.cpp: pieces every path uses ----

// STAGE_BEGIN (with the path) / STAGE_END events; sets the stage later events carry.
void stage_begin(RunContext &ctx, uint16_t s, StagePath path);
void stage_end(RunContext &ctx, uint16_t s);

// The stage's compressed weight block, or NULL.
const tigris_weight_block_t *stage_weight_block(const tigris_plan_t *plan, uint16_t s);

// Aligned bytes the stage's weight block takes in fast memory (0 without); false on overflow.
bool stage_weight_bytes(const tigris_plan_t *plan, uint16_t s, uint32_t *bytes);

// Prepare the plan the stage's kernels see: a shallow copy of ctx.plan whose weight_blob
// points at the stage's block, decompressed (or copied) at the top of the fast arena (for
// inputs read in place: into the room at the floor) and kept under fast_reserved for the
// stage. MEM when the block does not fit; KERNEL when it does not decode to exactly its
// uncompressed size. WEIGHTS event, stats->weight_bytes.
tigris_exec_error_t load_stage_weights(RunContext &ctx, uint16_t s, tigris_plan_t *kplan);

// Give output tensor t a full-size buffer: fast; on OOM (or above ctx.fast_cap) compact fast
// and retry; then slow (counted as overflow); MEM when neither has room.
tigris_exec_error_t alloc_stage_output(RunContext &ctx, uint16_t t);

// OP event, then the kernel; KERNEL on a non-zero result.
tigris_exec_error_t call_kernel(RunContext &ctx, const tigris_plan_t *kplan, uint16_t op_index);

// Null the pointer of every op output of the stage (stale values of earlier runs).
void null_stage_op_outputs(RunContext &ctx, const tigris_stage_t *stage);

// Null the op outputs of the stage that are not stage outputs.
void null_stage_intermediates(RunContext &ctx, const tigris_stage_t *stage);

// Release the stage's fast memory: fast_reserved back to the floor, then reset (RESET).
void release_stage_fast(RunContext &ctx);

// Whether t is in list[0, count).
bool list_has(const uint16_t *list, uint16_t count, uint16_t t);

// state.cpp: bind each state entry's input tensor to a slow copy of its region of the
// caller's buffer (COPY events); after a successful run copy each entry's output tensor
// back (COPY events). stats->copy_bytes counts both.
tigris_exec_error_t bind_state(RunContext &ctx, const uint8_t *state);
tigris_exec_error_t copy_state_back(RunContext &ctx, uint8_t *state);

}  // namespace tigris_rt
