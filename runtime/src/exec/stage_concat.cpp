// A Concat banded along its own axis (band kind CONCAT). The output is seen as a slab
// (`outer` blocks of the dims before the axis, the axis' units as rows, the dims after it
// as the cell); each band of output units [o0, o1) is allocated in fast memory, every input
// covering some of those units loads just them (packed the same way), the kernel copies
// (int8: requantizes) each piece into its place (concat_tiled) and the band is written back.
// The inputs are never held together: peak = plan_concat_peak. The band is the record's.
// Mode BLOCKS also cuts the blocks: each band holds units [u0, u1) of blocks [p0, p1) only
// (a run of pixels x a range of channels of an NHWC channel concat); the kernel sees the
// tensors as [p1 - p0, units, cell] (t_outer = p1 - p0).
#include <string.h>

#include "exec/band_io.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"
#include "plan/band_cost_plan.h"

namespace tigris_rt {

namespace {

struct ConcatStage {
    uint16_t op_index, out;
    uint32_t axis;
    Slab out_slab;
    uint32_t blocks;  // blocks per band (mode BLOCKS), else 0 (every block)
};

// Blocks [p0, p1) of a slab: the slab of those blocks and the address of the first.
Slab blocks_of(const Slab &s, uint32_t p0, uint32_t p1) { return Slab{p1 - p0, s.rows, s.cell}; }

uint8_t *block_at(const void *full, const Slab &s, uint32_t p0)
{
    return (uint8_t *)full + (size_t)p0 * s.rows * s.cell;
}

Slab slab_along(const tigris_plan_t *plan, uint16_t t, uint32_t axis)
{
    const tigris_tensor_t &x = plan->tensors[t];
    const CostTensor c = cost_tensor(tigris_tensor_shape(plan, &x), x.ndim, (uint8_t)tigris_dtype_size(x.dtype),
                                     (uint8_t)axis, false, 0);
    return slab_of(c);
}

// Load every input's share of output units [o0, o1); the others keep pointing at their
// slow buffers (`srcs`), which the kernel does not read.
tigris_exec_error_t load_pieces(RunContext &ctx, const ConcatStage &c, void *const *srcs, int32_t o0, int32_t o1,
                                uint32_t p0, uint32_t p1)
{
    const tigris_op_t &op = ctx.plan->ops[c.op_index];
    const uint16_t *ins = tigris_op_inputs(ctx.plan, &op);
    int32_t off = 0;
    for (uint32_t k = 0; k < op.num_inputs; k++) {
        const Slab s = slab_along(ctx.plan, ins[k], c.axis);
        ctx.mem->tensor_ptrs[ins[k]] = srcs[k];
        const int32_t lo = o0 > off ? o0 : off, hi = o1 < off + (int32_t)s.rows ? o1 : off + (int32_t)s.rows;
        if (hi > lo) {
            const tigris_exec_error_t rc =
                slab_load(ctx, ins[k], block_at(srcs[k], s, p0), blocks_of(s, p0, p1), lo - off, hi - off);
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
        off += (int32_t)s.rows;
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t run_bands(RunContext &ctx, const tigris_plan_t *kplan, const ConcatStage &c, void *const *srcs,
                              void *dst, uint32_t units)
{
    const int32_t E = (int32_t)c.out_slab.rows;
    const uint32_t P = c.out_slab.outer, step = c.blocks == 0 || c.blocks > P ? P : c.blocks;
    uint32_t tile = 0;
    for (uint32_t p0 = 0; p0 < P; p0 += step) {
        const uint32_t p1 = p0 + step < P ? p0 + step : P;
        const Slab os = blocks_of(c.out_slab, p0, p1);
        for (int32_t u0 = 0; u0 < E; u0 += (int32_t)units, ++tile) {
            const int32_t u1 = u0 + (int32_t)units < E ? u0 + (int32_t)units : E;
            trace_tile_begin(ctx.mem, tile, u0, u1);
            tigris_exec_error_t rc = TIGRIS_EXEC_OK;
            if (mem_alloc_fast(ctx.mem, c.out, slab_bytes(os, u0, u1)) != TIGRIS_MEM_OK) rc = TIGRIS_EXEC_ERR_MEM;
            if (rc == TIGRIS_EXEC_OK) rc = load_pieces(ctx, c, srcs, u0, u1, p0, p1);
            if (rc == TIGRIS_EXEC_OK) {
                tigris_tile_ctx_t &t = ctx.mem->tile;
                memset(&t, 0, sizeof(t));
                t.active = 1;
                t.concat_tiled = 1;
                t.out_row0 = u0;
                t.out_h = u1 - u0;
                t.t_outer = c.blocks != 0 ? (int32_t)(p1 - p0) : 0;
                rc = call_kernel(ctx, kplan, c.op_index);
                memset(&t, 0, sizeof(t));
            }
            if (rc == TIGRIS_EXEC_OK)
                rc = slab_spill(ctx, c.out, block_at(dst, c.out_slab, p0), os, u0, u1,
                                (const uint8_t *)ctx.mem->tensor_ptrs[c.out], u1 - u0, 0);
            mem_reset_fast(ctx.mem);
            ctx.stats->total_tiles++;
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
    }
    return TIGRIS_EXEC_OK;
}

}  // namespace

tigris_exec_error_t run_stage_concat(RunContext &ctx, uint16_t s)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_stage_t &st = plan->stages[s];
    stage_begin(ctx, s, StagePath::Concat);
    null_stage_op_outputs(ctx, &st);
    ConcatStage c{};
    c.op_index = tigris_stage_ops(plan, &st)[0];
    const tigris_op_t &op = plan->ops[c.op_index];
    const uint16_t *ins = tigris_op_inputs(plan, &op);
    c.out = tigris_op_outputs(plan, &op)[0];
    void *srcs[TIGRIS_MAX_STAGE_INPUTS];
    StageBand b;
    tigris_plan_t kplan;
    uint32_t units = 1, cols = 0;
    tigris_exec_error_t rc = load_stage_weights(ctx, s, &kplan);
    if (rc == TIGRIS_EXEC_OK &&
        (op.num_inputs > TIGRIS_MAX_STAGE_INPUTS || stage_band(plan, &st, &b) != TIGRIS_BAND_KIND_CONCAT))
        rc = TIGRIS_EXEC_ERR_TILE;
    uint32_t held = 0;  // inputs whose slow buffers are recorded (restored at the end)
    for (; rc == TIGRIS_EXEC_OK && held < op.num_inputs; held++) {
        srcs[held] = ctx.mem->tensor_ptrs[ins[held]];
        if (srcs[held] == nullptr) rc = TIGRIS_EXEC_ERR_MEM;
    }
    if (rc == TIGRIS_EXEC_OK) {
        c.axis = b.axis;
        c.out_slab = slab_along(plan, c.out, c.axis);
        const bool blocks = b.mode == TIGRIS_CONCAT_MODE_BLOCKS;
        plan_stated_band(plan, s, b.extent, blocks ? b.col_extent : 1, &units, &cols);
        c.blocks = blocks ? cols : 0;
        const uint64_t avail = ctx.mem->fast_size - ctx.mem->fast_reserved;
        if (plan_concat_peak(plan, c.op_index, c.axis, units, c.blocks, TIGRIS_TENSOR_ALIGN) > avail)
            rc = TIGRIS_EXEC_ERR_TILE;
    }
    if (rc == TIGRIS_EXEC_OK && mem_alloc_slow(ctx.mem, c.out, plan->tensors[c.out].size_bytes) != TIGRIS_MEM_OK)
        rc = TIGRIS_EXEC_ERR_MEM;
    void *dst = ctx.mem->tensor_ptrs[c.out];
    if (rc == TIGRIS_EXEC_OK) rc = run_bands(ctx, &kplan, c, srcs, dst, units);
    for (uint32_t k = 0; k < held; k++) ctx.mem->tensor_ptrs[ins[k]] = srcs[k];
    ctx.mem->tensor_ptrs[c.out] = rc == TIGRIS_EXEC_OK ? dst : nullptr;
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_tiled++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace tigris_rt
