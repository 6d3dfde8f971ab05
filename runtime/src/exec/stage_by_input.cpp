// By-input bands of a global reduction (GlobalAvg/GlobalMax, Reduce* over axis 1): the
// accumulator (4 bytes per output element: float, or int32 for int8) and the output are
// allocated once and kept under fast_reserved; each band loads input rows [h0, h1) of axis 1
// and the kernel accumulates (reduce_first zeroes, reduce_last writes the output); the
// output is spilled after the last band. Mode FLAT bands the input's elements in memory
// order instead of rows (the slab is one block of E one-element rows; the kernel combines
// each element into its output's accumulator). Peak = cost_layout_peak(BY_INPUT).
#include <string.h>

#include "exec/band_io.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"
#include "plan/band_cost_plan.h"

namespace tigris_rt {

namespace {

struct Reduction {
    uint16_t op_index, in, out;
    Slab slab;  // the input: dim 0 blocks of rows of axis 1
    uint32_t out_elements;
    bool flat;  // mode FLAT
};

bool describe(const tigris_plan_t *plan, const tigris_stage_t &st, Reduction *r)
{
    StageBand band;
    r->flat = stage_band(plan, &st, &band) == TIGRIS_BAND_KIND_BY_INPUT && band.mode == TIGRIS_BY_INPUT_MODE_FLAT;
    r->op_index = tigris_stage_ops(plan, &st)[0];
    const tigris_op_t &op = plan->ops[r->op_index];
    r->in = tigris_op_inputs(plan, &op)[0];
    r->out = tigris_op_outputs(plan, &op)[0];
    const tigris_tensor_t &x = plan->tensors[r->in], &y = plan->tensors[r->out];
    const int32_t *d = tigris_tensor_shape(plan, &x);
    const CostTensor t = cost_tensor(d, x.ndim, (uint8_t)tigris_dtype_size(x.dtype), 1, false, 0);
    r->slab = slab_of(t);
    const uint32_t e = tigris_dtype_size(y.dtype);
    r->out_elements = e ? y.size_bytes / e : 0;
    if (r->flat) {
        const uint32_t xe = tigris_dtype_size(x.dtype);
        r->slab = Slab{1u, xe ? x.size_bytes / xe : 0u, xe};
        return r->slab.rows > 1 && e != 0;
    }
    return x.ndim >= 3 && t.rows > 1 && e != 0;
}

tigris_exec_error_t choose_rows(const RunContext &ctx, uint16_t s, const Reduction &r, uint32_t *rows)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint32_t H = r.slab.rows, ib = plan->tensors[r.in].size_bytes, ob = plan->tensors[r.out].size_bytes;
    const uint64_t avail = ctx.mem->fast_size - ctx.mem->fast_reserved;
    uint32_t cols = 0;
    plan_stated_band(plan, s, H, 1, rows, &cols);
    if (plan->header->version < 11) {
        uint32_t lo = 1, hi = H;
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1u) / 2u;
            if (cost_layout_peak(TIGRIS_BAND_KIND_BY_INPUT, H, mid, ib, ob, r.out_elements, TIGRIS_TENSOR_ALIGN) <=
                avail)
                lo = mid;
            else hi = mid - 1u;
        }
        *rows = lo;
    }
    return cost_layout_peak(TIGRIS_BAND_KIND_BY_INPUT, H, *rows, ib, ob, r.out_elements, TIGRIS_TENSOR_ALIGN) <= avail
               ? TIGRIS_EXEC_OK
               : TIGRIS_EXEC_ERR_TILE;
}

tigris_exec_error_t run_bands(RunContext &ctx, const tigris_plan_t *kplan, const Reduction &r, const void *src,
                              uint8_t *acc, uint32_t rows)
{
    const int32_t H = (int32_t)r.slab.rows;
    uint32_t tile = 0;
    for (int32_t h0 = 0; h0 < H; h0 += (int32_t)rows, ++tile) {
        const int32_t h1 = h0 + (int32_t)rows < H ? h0 + (int32_t)rows : H;
        trace_tile_begin(ctx.mem, tile, h0, h1);
        tigris_exec_error_t rc = slab_load(ctx, r.in, src, r.slab, h0, h1);
        if (rc == TIGRIS_EXEC_OK) {
            tigris_tile_ctx_t &t = ctx.mem->tile;
            memset(&t, 0, sizeof(t));
            t.active = 1;
            t.in_h = h1 - h0;
            t.out_h = 1;
            t.in_row0 = h0;
            t.reduce_first = h0 == 0;
            t.reduce_last = h1 == H;
            t.reduce_acc = acc;
            t.reduce_flat = r.flat;
            rc = call_kernel(ctx, kplan, r.op_index);
            memset(&t, 0, sizeof(t));
        }
        mem_reset_fast(ctx.mem);
        ctx.stats->total_tiles++;
        if (rc != TIGRIS_EXEC_OK) return rc;
    }
    return TIGRIS_EXEC_OK;
}

}  // namespace

tigris_exec_error_t run_stage_by_input(RunContext &ctx, uint16_t s)
{
    const tigris_stage_t &st = ctx.plan->stages[s];
    stage_begin(ctx, s, StagePath::ByInput);
    null_stage_op_outputs(ctx, &st);
    Reduction r{};
    tigris_plan_t kplan;
    uint32_t rows = 1;
    uint8_t *acc = nullptr;
    tigris_exec_error_t rc = load_stage_weights(ctx, s, &kplan);
    if (rc == TIGRIS_EXEC_OK && !describe(ctx.plan, st, &r)) rc = TIGRIS_EXEC_ERR_TILE;
    const void *src = rc == TIGRIS_EXEC_OK ? ctx.mem->tensor_ptrs[r.in] : nullptr;
    if (rc == TIGRIS_EXEC_OK && src == nullptr) rc = TIGRIS_EXEC_ERR_MEM;
    if (rc == TIGRIS_EXEC_OK) rc = choose_rows(ctx, s, r, &rows);
    if (rc == TIGRIS_EXEC_OK && (mem_bump_fast(ctx.mem, 4u * r.out_elements, &acc) != TIGRIS_MEM_OK ||
                                 mem_alloc_fast(ctx.mem, r.out, ctx.plan->tensors[r.out].size_bytes) != TIGRIS_MEM_OK))
        rc = TIGRIS_EXEC_ERR_MEM;
    if (rc == TIGRIS_EXEC_OK) {
        mem_reserve_fast(ctx.mem);
        rc = run_bands(ctx, &kplan, r, src, acc, rows);
    }
    if (rc == TIGRIS_EXEC_OK && mem_spill(ctx.mem, r.out, ctx.plan->tensors[r.out].size_bytes) != TIGRIS_MEM_OK)
        rc = TIGRIS_EXEC_ERR_MEM;
    if (rc == TIGRIS_EXEC_OK) ctx.mem->tensor_ptrs[r.in] = (void *)src;
    else null_stage_op_outputs(ctx, &st);
    if (src != nullptr) ctx.mem->tensor_ptrs[r.in] = (void *)src;
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_tiled++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace tigris_rt
