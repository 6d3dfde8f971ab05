// Layout conversions banded along one extent: TRANSPOSE (a 2-block swap, rows or
// BAND_ON_COLUMNS), LEADING (leading batch blocks, or rows of the output's leading axis)
// and RESHAPE (bands of a shared leading extent). Each band copies a slab of the input into
// fast memory (strided on one side, contiguous on the other), runs the kernel on the packed
// band (transposed_tile / reshape copy) and writes the output slab back:
//   peak = align(band * in_bytes / extent) + align(band * out_bytes / extent)
// (cost_layout_peak). The band is the record's (schema 11) or the largest that fits.
#include <string.h>

#include "exec/band_io.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"
#include "plan/band_cost_plan.h"

namespace tigris_rt {

namespace {

// How one band of `u` units is moved and transposed: the kernel swaps t_outer blocks of
// [t_rows, t_cols] items of t_block elements, where the banded factor is multiplied by u.
enum BandFactor : uint8_t { FACTOR_OUTER, FACTOR_ROWS, FACTOR_COLS };

struct Layout {
    Slab in, out;  // both have `extent` rows (units)
    int32_t outer, rows, cols, block;
    uint8_t factor;  // BandFactor
    bool reshape;    // a byte copy of t_block-byte units
};

uint32_t prod(const int32_t *d, uint32_t from, uint32_t to)
{
    uint32_t n = 1;
    for (uint32_t a = from; a < to; ++a) n *= (uint32_t)d[a];
    return n;
}

bool transpose_layout(const tigris_plan_t *plan, const tigris_stage_t &st, const uint8_t *perm, uint8_t len,
                      const int32_t *d, uint32_t e, Layout *l)
{
    const uint32_t R = prod(d, 1, perm[1]), C = prod(d, perm[1], len);
    const tigris_tile_plan_v10_t ch = tigris_rt::stage_tiles(plan, &st);
    const bool columns = plan->header->version >= 9 ? (ch.flags & TIGRIS_TILE_BAND_ON_COLUMNS) != 0 : C > R;
    l->outer = l->rows = l->cols = l->block = 1;
    if (columns) {  // gather [R, band] columns, write [band, R] contiguous rows
        l->in = Slab{R, C, e};
        l->out = Slab{1, C, R * e};
        l->rows = (int32_t)R, l->factor = FACTOR_COLS;
    } else {  // contiguous [band, C] rows, scatter [C, band] columns
        l->in = Slab{1, R, C * e};
        l->out = Slab{C, R, e};
        l->cols = (int32_t)C, l->factor = FACTOR_ROWS;
    }
    return true;
}

bool leading_layout(const StageBand &b, const uint8_t *perm, uint8_t len, const int32_t *d, uint32_t e,
                    uint32_t out_bytes, Layout *l)
{
    uint8_t m = 0, q = 0;
    if (b.mode == TIGRIS_LEADING_MODE_BATCH) {
        const uint8_t p = (uint8_t)(b.axis + 1);
        if (!leading_swap(perm, len, p, &m, &q)) return false;
        l->in = Slab{1, b.extent, prod(d, p, len) * e};
        l->out = l->in;
        l->outer = 1, l->rows = (int32_t)prod(d, p, m), l->cols = (int32_t)prod(d, m, q);
        l->factor = FACTOR_OUTER;
    } else {
        if (!leading_swap(perm, len, 0, &m, &q) || m >= len) return false;
        l->in = Slab{prod(d, 0, m), (uint32_t)d[m], prod(d, m + 1u, len) * e};
        l->out = Slab{1, (uint32_t)d[m], out_bytes / (uint32_t)d[m]};
        l->outer = 1, l->rows = (int32_t)prod(d, 0, m), l->cols = (int32_t)prod(d, m + 1u, q);
        l->factor = FACTOR_COLS;
    }
    l->block = (int32_t)prod(d, q, len);
    return true;
}

bool describe_layout(const tigris_plan_t *plan, const tigris_stage_t &st, const StageBand &b, Layout *l)
{
    *l = Layout{};
    const uint16_t op_index = tigris_stage_ops(plan, &st)[0];
    const tigris_op_t &op = plan->ops[op_index];
    const tigris_tensor_t &in = plan->tensors[tigris_op_inputs(plan, &op)[0]];
    const tigris_tensor_t &out = plan->tensors[tigris_op_outputs(plan, &op)[0]];
    const uint32_t e = tigris_dtype_size(in.dtype);
    if (b.kind == TIGRIS_BAND_KIND_RESHAPE) {
        l->in = Slab{1, b.extent, in.size_bytes / b.extent};
        l->out = Slab{1, b.extent, out.size_bytes / b.extent};
        l->reshape = true;
        return l->in.cell == l->out.cell;
    }
    uint8_t len = 0;
    const uint8_t *perm = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_TRANSPOSE_PERM, &len);
    if (perm == nullptr || len != in.ndim || len < 2) return false;
    const int32_t *d = tigris_tensor_shape(plan, &in);
    if (b.kind == TIGRIS_BAND_KIND_TRANSPOSE) return transpose_layout(plan, st, perm, len, d, e, l);
    return leading_layout(b, perm, len, d, e, out.size_bytes, l);
}

void set_layout_tile(tigris_tile_ctx_t *t, const Layout &l, int32_t units)
{
    memset(t, 0, sizeof(*t));
    t->active = 1;
    if (l.reshape) {
        t->out_h = t->in_h = units;
        t->t_block = (int32_t)l.in.cell;
        return;
    }
    t->transposed_tile = 1;
    t->t_outer = l.outer * (l.factor == FACTOR_OUTER ? units : 1);
    t->t_rows = l.rows * (l.factor == FACTOR_ROWS ? units : 1);
    t->t_cols = l.cols * (l.factor == FACTOR_COLS ? units : 1);
    t->t_block = l.block;
}

// The stage's one op and its banded input and output.
void layout_io(const RunContext &ctx, const tigris_stage_t &st, uint16_t *op_index, uint16_t *in, uint16_t *out)
{
    *op_index = tigris_stage_ops(ctx.plan, &st)[0];
    const tigris_op_t &op = ctx.plan->ops[*op_index];
    *in = tigris_op_inputs(ctx.plan, &op)[0];
    *out = tigris_op_outputs(ctx.plan, &op)[0];
}

// The band: the record's (schema 11) or the largest whose slices fit; TILE when none.
tigris_exec_error_t choose_units(const RunContext &ctx, uint16_t s, const StageBand &b, uint16_t in, uint16_t out,
                                 uint32_t *units)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint32_t ib = plan->tensors[in].size_bytes, ob = plan->tensors[out].size_bytes;
    const uint32_t oe = ob / tigris_dtype_size(plan->tensors[out].dtype);
    const uint64_t avail = ctx.mem->fast_size - ctx.mem->fast_reserved;
    uint32_t cols = 0;
    plan_stated_band(plan, s, b.extent, 1, units, &cols);
    if (plan->header->version < 11) {
        uint32_t lo = 1, hi = b.extent;
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1u) / 2u;
            if (cost_layout_peak(b.kind, b.extent, mid, ib, ob, oe, TIGRIS_TENSOR_ALIGN) <= avail) lo = mid;
            else hi = mid - 1u;
        }
        *units = lo;
    }
    return cost_layout_peak(b.kind, b.extent, *units, ib, ob, oe, TIGRIS_TENSOR_ALIGN) <= avail ? TIGRIS_EXEC_OK
                                                                                                : TIGRIS_EXEC_ERR_TILE;
}

tigris_exec_error_t run_bands(RunContext &ctx, const tigris_plan_t *kplan, const Layout &l, uint16_t op_index,
                              uint16_t in, uint16_t out, const void *src, void *dst, uint32_t units)
{
    const int32_t E = (int32_t)l.in.rows;
    uint32_t tile = 0;
    for (int32_t u0 = 0; u0 < E; u0 += (int32_t)units, ++tile) {
        const int32_t u1 = u0 + (int32_t)units < E ? u0 + (int32_t)units : E;
        trace_tile_begin(ctx.mem, tile, u0, u1);
        tigris_exec_error_t rc = slab_load(ctx, in, src, l.in, u0, u1);
        if (rc == TIGRIS_EXEC_OK && mem_alloc_fast(ctx.mem, out, slab_bytes(l.out, u0, u1)) != TIGRIS_MEM_OK)
            rc = TIGRIS_EXEC_ERR_MEM;
        if (rc == TIGRIS_EXEC_OK) {
            set_layout_tile(&ctx.mem->tile, l, u1 - u0);
            rc = call_kernel(ctx, kplan, op_index);
            memset(&ctx.mem->tile, 0, sizeof(ctx.mem->tile));
        }
        if (rc == TIGRIS_EXEC_OK)
            rc = slab_spill(ctx, out, dst, l.out, u0, u1, (const uint8_t *)ctx.mem->tensor_ptrs[out], u1 - u0, 0);
        mem_reset_fast(ctx.mem);
        ctx.stats->total_tiles++;
        if (rc != TIGRIS_EXEC_OK) return rc;
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t run_layout_stage(RunContext &ctx, uint16_t s, StagePath path)
{
    const tigris_stage_t &st = ctx.plan->stages[s];
    stage_begin(ctx, s, path);
    null_stage_op_outputs(ctx, &st);
    uint16_t op_index, in, out;
    layout_io(ctx, st, &op_index, &in, &out);
    void *src = ctx.mem->tensor_ptrs[in];
    StageBand b;
    Layout l;
    tigris_plan_t kplan;
    uint32_t units = 1;
    tigris_exec_error_t rc = load_stage_weights(ctx, s, &kplan);
    if (rc == TIGRIS_EXEC_OK && (stage_band(ctx.plan, &st, &b) == TIGRIS_BAND_KIND_NONE ||
                                 !describe_layout(ctx.plan, st, b, &l) || src == nullptr))
        rc = TIGRIS_EXEC_ERR_TILE;
    if (rc == TIGRIS_EXEC_OK) rc = choose_units(ctx, s, b, in, out, &units);
    if (rc == TIGRIS_EXEC_OK && mem_alloc_slow(ctx.mem, out, ctx.plan->tensors[out].size_bytes) != TIGRIS_MEM_OK)
        rc = TIGRIS_EXEC_ERR_MEM;
    void *dst = ctx.mem->tensor_ptrs[out];
    if (rc == TIGRIS_EXEC_OK) rc = run_bands(ctx, &kplan, l, op_index, in, out, src, dst, units);
    ctx.mem->tensor_ptrs[in] = src;
    ctx.mem->tensor_ptrs[out] = rc == TIGRIS_EXEC_OK ? dst : nullptr;
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_tiled++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace

tigris_exec_error_t run_stage_transpose(RunContext &ctx, uint16_t s)
{
    return run_layout_stage(ctx, s, StagePath::Transpose);
}
tigris_exec_error_t run_stage_leading(RunContext &ctx, uint16_t s)
{
    return run_layout_stage(ctx, s, StagePath::Leading);
}
tigris_exec_error_t run_stage_reshape(RunContext &ctx, uint16_t s)
{
    return run_layout_stage(ctx, s, StagePath::Reshape);
}

}  // namespace tigris_rt
