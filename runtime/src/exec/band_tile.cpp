// The tile engine (band_tile.h).
#include "exec/band_tile.h"

#include <string.h>

#include "exec/band_io.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

namespace {

int32_t *info(BandRun &run) { return run.ctx->ws.roll; }

const tigris_stage_t &head_stage(const BandRun &run) { return run.ctx->plan->stages[run.pctx.head]; }
const tigris_stage_t &last_stage(const BandRun &run) { return run.ctx->plan->stages[run.pctx.last]; }

bool is_hw(const BandRun &run) { return run.src.hw != 0; }  // columns banded (HW or channels)

bool is_chan(const BandRun &run) { return run.pctx.shape == PLAN_COST_CHANNELS; }

CostTensor band_tensor(const BandRun &run, uint16_t t) { return band_memo_tensor(run.memo, t); }

// Op j of the source: the memo's entry, or filled into *scratch.
const CostOp &band_op(const BandRun &run, uint16_t j, CostOp *scratch)
{
    if (j < run.memo.num_ops) return run.memo.ops[j];
    run.src.op(run.src.ctx, j, scratch);
    return *scratch;
}

// The box of space sp's current band in tensor t: its rows and columns, or (channel bands)
// its rows, every column and its channels.
MemBox band_box(const BandRun &run, uint16_t t, const CostSpace &sp)
{
    if (!is_chan(run)) return MemBox{sp.r0, sp.r1, sp.c0, sp.c1, 0, tensor_dim(run.ctx->plan, t, 3), 0};
    if (run.pctx.lo == 0) return MemBox{sp.r0, sp.r1, 0, 1, sp.c0, sp.c1, 1};  // a matrix stage: [rows, columns]
    return MemBox{sp.r0, sp.r1, 0, tensor_dim(run.ctx->plan, t, 2), sp.c0, sp.c1, 0};
}

// Whether list[i] is the first listing of its tensor.
bool first_listing(const uint16_t *list, uint16_t i)
{
    for (uint16_t k = 0; k < i; ++k)
        if (list[k] == list[i]) return false;
    return true;
}

// Index of tensor t in the head's input list (its slow copy is ws.stage_in[index]).
uint16_t input_slot(const BandRun &run, uint16_t t)
{
    const tigris_stage_t &h = run.ctx->plan->stages[run.pctx.head];
    const uint16_t *ins = tigris_stage_inputs(run.ctx->plan, &h);
    uint16_t i = 0;
    while (i + 1u < h.inputs_count && ins[i] != t) ++i;
    return i;
}

// Bytes of tensor t's buffer for the current band of space sp (or its line buffer).
uint32_t band_buffer_bytes(const CostTensor &t, const CostSpace &sp, bool hw, bool at_max)
{
    const uint64_t rows = (uint64_t)(at_max ? sp.max_rows : sp.r1 - sp.r0);
    const uint64_t cols = hw ? (uint64_t)(at_max ? sp.max_cols : sp.c1 - sp.c0) : t.cols;
    const uint64_t bytes = (uint64_t)t.outer * rows * cols * t.cell;
    return bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
}

// Every tensor the run touches (listed stage inputs no op reads included) starts unplaced.
void reset_info(BandRun &run)
{
    int32_t *in = info(run);
    const tigris_plan_t *plan = run.ctx->plan;
    const tigris_stage_t &h = head_stage(run), &l = last_stage(run);
    const uint16_t *ins = tigris_stage_inputs(plan, &h), *outs = tigris_stage_outputs(plan, &l);
    for (uint16_t i = 0; i < h.inputs_count; ++i) in[2 * ins[i]] = kNoSpace, in[2 * ins[i] + 1] = -1;
    for (uint16_t i = 0; i < l.outputs_count; ++i) in[2 * outs[i]] = kNoSpace, in[2 * outs[i] + 1] = -1;
    for (uint16_t j = 0; j < run.src.num_ops; ++j) {
        CostOp op;
        run.src.op(run.src.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) in[2 * op.inputs[k]] = kNoSpace, in[2 * op.inputs[k] + 1] = -1;
        for (uint8_t k = 0; k < op.num_outputs; ++k) in[2 * op.outputs[k]] = kNoSpace, in[2 * op.outputs[k] + 1] = -1;
    }
}

}  // namespace

// info[2t]: the space of every band buffer (a loaded tensor: its first read); info[2t + 1]:
// the fast offset of its line buffer (-1 without).
void band_fill_info(BandRun &run)
{
    int32_t *in = info(run);
    reset_info(run);
    int32_t space = 0;
    for (uint16_t j = 0; j < run.src.num_ops; ++j) {
        CostOp op;
        run.src.op(run.src.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) {
            const uint16_t t = op.inputs[k];
            const CostTensor ct = band_tensor(run, t);
            if (ct.flags & COST_CONSTANT) continue;
            if (ct.flags & COST_WHOLE) in[2 * t] = kWholeSpace;
            else if ((ct.flags & COST_LOADED) && in[2 * t] == kNoSpace) in[2 * t] = space;
        }
        if (op.spatial && space + 1 < run.n) ++space;
        for (uint8_t k = 0; k < op.num_outputs; ++k) in[2 * op.outputs[k]] = space;
    }
}

namespace {

// Line buffers: every band buffer (loads in their first space) at its space's max rows,
// allocated once; a loaded tensor's offset is kept in info[2t + 1].
tigris_exec_error_t alloc_line_buffers(BandRun &run)
{
    const tigris_plan_t *plan = run.ctx->plan;
    tigris_mem_t *mem = run.ctx->mem;
    int32_t *in = info(run);
    const tigris_stage_t &h = head_stage(run);
    const uint16_t *ins = tigris_stage_inputs(plan, &h);
    for (uint16_t i = 0; i < h.inputs_count; ++i) {
        const uint16_t t = ins[i];
        if (!first_listing(ins, i) || in[2 * t] < 0) continue;
        const CostTensor ct = band_tensor(run, t);
        in[2 * t + 1] = (int32_t)mem->fast_used;
        if (mem_alloc_fast(mem, t, band_buffer_bytes(ct, run.spaces[in[2 * t]], false, true)) != TIGRIS_MEM_OK)
            return TIGRIS_EXEC_ERR_MEM;
    }
    for (uint16_t j = 0; j < run.src.num_ops; ++j) {
        CostOp op;
        run.src.op(run.src.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_outputs; ++k) {
            const uint16_t t = op.outputs[k];
            const CostTensor ct = band_tensor(run, t);
            if (mem_alloc_fast(mem, t, band_buffer_bytes(ct, run.spaces[in[2 * t]], false, true)) != TIGRIS_MEM_OK)
                return TIGRIS_EXEC_ERR_MEM;
        }
    }
    return TIGRIS_EXEC_OK;
}

// A new band buffer of loaded tensor t at the current rows (and columns) of space sp.
tigris_exec_error_t load_band(BandRun &run, uint16_t t, const CostSpace &sp)
{
    RunContext &ctx = *run.ctx;
    void *full = ctx.ws.stage_in[input_slot(run, t)];
    if (!is_hw(run)) return slab_load(ctx, t, full, slab_of(band_tensor(run, t)), sp.r0, sp.r1);
    ctx.mem->tensor_ptrs[t] = full;
    return mem_load_box(ctx.mem, ctx.plan, t, band_box(run, t, sp)) == TIGRIS_MEM_OK ? TIGRIS_EXEC_OK
                                                                                      : TIGRIS_EXEC_ERR_MEM;
}

void trace_tile(BandRun &run, uint32_t tile)
{
    tigris_mem_t *mem = run.ctx->mem;
    if (!trace_enabled(mem)) return;
    tigris_trace_event_t e = trace_blank(TIGRIS_TRACE_TILE_BEGIN);
    const CostSpace &s0 = run.spaces[0];
    e.op = (uint16_t)(tile > 0xFFFFu ? 0xFFFFu : tile);
    e.row0 = s0.r0;
    e.row1 = s0.r1;
    if (is_hw(run)) e.col0 = s0.c0, e.col1 = s0.c1;
    trace_send(mem, &e);
}

// The loaded tensors' bands of this tile in their first space (line buffers: roll, then
// only the new rows).
tigris_exec_error_t load_tile_inputs(BandRun &run, bool first)
{
    RunContext &ctx = *run.ctx;
    const int32_t *in = info(run);
    const tigris_stage_t &h = head_stage(run);
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, &h);
    for (uint16_t i = 0; i < h.inputs_count; ++i) {
        const uint16_t t = ins[i];
        if (!first_listing(ins, i) || in[2 * t] < 0) continue;
        const CostSpace &sp = run.spaces[in[2 * t]];
        if (!run.line_buffered) {
            tigris_exec_error_t rc = load_band(run, t, sp);
            if (rc != TIGRIS_EXEC_OK) return rc;
            continue;
        }
        const Slab s = slab_of(band_tensor(run, t));
        uint8_t *buf = ctx.mem->fast_base + in[2 * t + 1];
        ctx.mem->tensor_ptrs[t] = buf;  // a reload of the previous tile may have moved it
        int32_t from = sp.r0;
        if (!first && sp.prev_r1 > sp.r0) {
            slab_roll(ctx, t, buf, s, sp.prev_r1 - sp.prev_r0, sp.r0 - sp.prev_r0, sp.prev_r1 - sp.r0, sp.r1 - sp.r0);
            from = sp.prev_r1;
        }
        if (from < sp.r1) {
            tigris_exec_error_t rc =
                slab_load_into(ctx, t, ctx.ws.stage_in[i], s, from, sp.r1, buf, sp.r1 - sp.r0, from - sp.r0);
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
    }
    return TIGRIS_EXEC_OK;
}

// Loaded tensors op `op` reads in a space after their first get a band of that space (once
// per space: a buffer at or above `space_start` is this space's).
tigris_exec_error_t reload_inputs(BandRun &run, const CostOp &op, int32_t space, uint32_t space_start)
{
    RunContext &ctx = *run.ctx;
    const int32_t *in = info(run);
    for (uint8_t k = 0; k < op.num_inputs; ++k) {
        const uint16_t t = op.inputs[k];
        if (in[2 * t] < 0 || in[2 * t] >= space || !(band_tensor(run, t).flags & COST_LOADED)) continue;
        const void *p = ctx.mem->tensor_ptrs[t];
        if (p != nullptr && in_fast(ctx.mem, p) && pool_offset(ctx.mem, p) >= space_start) continue;
        tigris_exec_error_t rc = load_band(run, t, run.spaces[space]);
        if (rc != TIGRIS_EXEC_OK) return rc;
    }
    return TIGRIS_EXEC_OK;
}

// The tile context of op `op` writing rows [q0, out.r1) of space k.
void set_op_tile(BandRun &run, const CostOp &op, int32_t k, int32_t q0)
{
    tigris_tile_ctx_t &t = run.ctx->mem->tile;
    const CostSpace &out = run.spaces[k];
    memset(&t, 0, sizeof(t));
    t.active = 1;
    t.width_tiled = is_hw(run) && !is_chan(run) ? 1 : 0;
    if (is_chan(run)) t.chan_tiled = 1, t.chan0 = out.c0, t.chans = out.c1 - out.c0;
    // A Conv (FullyConnected) in an output-channel band reads every input channel (column).
    if (is_chan(run) && op.spatial && op.col.kind == BAND_GEOM_ALL) t.chan_mix = 1;
    // Rank-2 channel bands: rows of a matrix (axis 0), columns its channels (axis 1).
    t.row_tiled = run.pctx.shape == PLAN_COST_ROWS ? 1 : 0;
    if (is_chan(run) && run.pctx.lo == 0) t.row_tiled = 1;
    t.out_h = out.r1 - q0;
    t.out_row_start = q0 - out.r0;
    t.out_row0 = q0;
    t.out_col0 = out.c0;
    if (t.width_tiled) t.out_w = out.c1 - out.c0;
    if (op.spatial && k > 0) {
        const CostSpace &src = run.spaces[k - 1];
        BandRows r{src.r0, src.r1, out.pad_top, out.pad_bottom};  // cost_band_ranges' figures for [out.r0, out.r1)
        if (q0 != out.r0) band_input_rows(&op.row, src.rows, q0, out.r1, &r);
        t.in_h = r.in1 - r.in0;
        t.in_row_start = r.in0 - src.r0;
        t.in_row0 = r.in0;
        t.pad_top = r.pad_before;
        t.pad_bottom = r.pad_after;
        t.in_col0 = src.c0;
        if (t.width_tiled) {
            t.in_w = src.c1 - src.c0;
            t.pad_left = out.pad_left;
            t.pad_right = out.pad_right;
        }
    } else {
        t.in_h = t.out_h;
        t.in_row_start = t.out_row_start;
        t.in_row0 = q0;
        t.in_col0 = out.c0;
        t.in_w = t.out_w;
    }
    if (t.chan_tiled) t.in_col0 = t.out_col0 = 0;  // every column
}

// Give op outputs their band buffers (line buffers: roll the rows the tile shares).
tigris_exec_error_t place_outputs(BandRun &run, const CostOp &op, int32_t k, bool first, int32_t *q0)
{
    RunContext &ctx = *run.ctx;
    const CostSpace &sp = run.spaces[k];
    *q0 = sp.r0;
    if (run.line_buffered && !first && sp.prev_r1 > sp.r0) *q0 = sp.prev_r1 < sp.r1 ? sp.prev_r1 : sp.r1;
    for (uint8_t m = 0; m < op.num_outputs; ++m) {
        const uint16_t t = op.outputs[m];
        const CostTensor ct = band_tensor(run, t);
        if (!run.line_buffered) {
            if (mem_alloc_fast(ctx.mem, t, band_buffer_bytes(ct, sp, is_hw(run), false)) != TIGRIS_MEM_OK)
                return TIGRIS_EXEC_ERR_MEM;
        } else if (*q0 > sp.r0) {
            slab_roll(ctx, t, (uint8_t *)ctx.mem->tensor_ptrs[t], slab_of(ct), sp.prev_r1 - sp.prev_r0,
                      sp.r0 - sp.prev_r0, *q0 - sp.r0, sp.r1 - sp.r0);
        }
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t run_tile_ops(BandRun &run, bool first)
{
    RunContext &ctx = *run.ctx;
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t members = (uint16_t)(run.pctx.last - run.pctx.head + 1u);
    uint16_t member = 0;
    uint32_t member_end = plan->stages[run.pctx.head].ops_count;
    int32_t space = 0;
    uint32_t space_start = ctx.mem->fast_used;
    for (uint16_t j = 0; j < run.src.num_ops; ++j) {
        while (j >= member_end && member + 1u < members) member_end += plan->stages[run.pctx.head + ++member].ops_count;
        run.kplan->weight_blob = run.blobs[member] != nullptr ? (const uint8_t *)run.blobs[member] : plan->weight_blob;
        CostOp scratch;
        const CostOp &op = band_op(run, j, &scratch);
        tigris_exec_error_t rc = reload_inputs(run, op, space, space_start);
        if (rc != TIGRIS_EXEC_OK) return rc;
        if (op.spatial && space + 1 < run.n) ++space, space_start = ctx.mem->fast_used;
        int32_t q0 = 0;
        rc = place_outputs(run, op, space, first, &q0);
        if (rc != TIGRIS_EXEC_OK) return rc;
        if (q0 >= run.spaces[space].r1) continue;  // line buffers: every row already there
        set_op_tile(run, op, space, q0);
        rc = call_kernel(ctx, run.kplan, (uint16_t)(run.pctx.first_op + j));
        if (rc != TIGRIS_EXEC_OK) return rc;
    }
    // The tile context stays set until the next op's (set_op_tile) or band_finish clears it:
    // nothing between two kernels reads it (the copies and the arena do not).
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t spill_tile_outputs(BandRun &run)
{
    RunContext &ctx = *run.ctx;
    const int32_t *in = info(run);
    const tigris_stage_t &l = last_stage(run);
    const uint16_t *outs = tigris_stage_outputs(ctx.plan, &l);
    for (uint16_t i = 0; i < l.outputs_count; ++i) {
        const uint16_t t = outs[i];
        if (!first_listing(outs, i) || in[2 * t] < 0) continue;
        const CostSpace &sp = run.spaces[in[2 * t]];
        void *full = ctx.ws.stage_out[i];
        tigris_exec_error_t rc;
        if (is_hw(run)) {
            rc = mem_spill_box(ctx.mem, ctx.plan, t, full, band_box(run, t, sp)) == TIGRIS_MEM_OK
                     ? TIGRIS_EXEC_OK
                     : TIGRIS_EXEC_ERR_MEM;
        } else {
            rc = slab_spill(ctx, t, full, slab_of(band_tensor(run, t)), sp.r0, sp.r1,
                            (const uint8_t *)ctx.mem->tensor_ptrs[t], sp.r1 - sp.r0, 0);
        }
        if (rc != TIGRIS_EXEC_OK) return rc;
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t run_tile(BandRun &run, uint32_t tile, bool first)
{
    trace_tile(run, tile);
    tigris_exec_error_t rc = load_tile_inputs(run, first);
    if (rc == TIGRIS_EXEC_OK) rc = run_tile_ops(run, first);
    if (rc == TIGRIS_EXEC_OK) rc = spill_tile_outputs(run);
    if (run.line_buffered) {
        for (uint16_t k = 0; k < run.n; ++k)
            run.spaces[k].prev_r0 = run.spaces[k].r0, run.spaces[k].prev_r1 = run.spaces[k].r1;
    }
    mem_reset_fast(run.ctx->mem);  // the band's buffers (line buffers: its reloads)
    run.ctx->stats->total_tiles++;
    return rc;
}

}  // namespace

tigris_exec_error_t band_describe(BandRun &run, uint16_t s, tigris_band_kind_t kind, uint16_t capacity)
{
    CostSource plan_src;
    if (!plan_cost_source(run.ctx->plan, s, kind, &run.pctx, &plan_src)) return TIGRIS_EXEC_ERR_TILE;
    plan_src.ctx = &run.pctx;  // the source points at this run's copy
    run.src = band_memo_fill(run.memo, plan_src);
    run.n = cost_spaces(run.src, run.spaces, capacity);
    return run.n == 0 ? TIGRIS_EXEC_ERR_TILE : TIGRIS_EXEC_OK;
}

tigris_exec_error_t band_choose(BandRun &run, uint16_t s, uint32_t search_upto, uint32_t *rows, uint32_t *cols,
                                CostPeak *peak)
{
    const tigris_mem_t *mem = run.ctx->mem;
    const uint64_t avail = mem->fast_size > mem->fast_reserved ? mem->fast_size - mem->fast_reserved : 0u;
    const CostSpace &last = run.spaces[run.n - 1];
    plan_stated_band(run.ctx->plan, s, (uint32_t)last.rows, (uint32_t)last.cols, rows, cols);
    if (search_upto > 0) {  // the largest band that fits, by bisection (bytes grow with the band)
        uint32_t lo = 1, hi = search_upto < (uint32_t)last.rows ? search_upto : (uint32_t)last.rows;
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1u) / 2u;
            if (cost_banded_peak(run.src, run.spaces, run.n, mid, *cols, run.line_buffered, TIGRIS_TENSOR_ALIGN,
                                 peak) &&
                peak->peak <= avail)
                lo = mid;
            else hi = mid - 1u;
        }
        *rows = lo;
    }
    if (!cost_banded_peak(run.src, run.spaces, run.n, *rows, *cols, run.line_buffered, TIGRIS_TENSOR_ALIGN, peak))
        return TIGRIS_EXEC_ERR_TILE;
    return peak->peak <= avail ? TIGRIS_EXEC_OK : TIGRIS_EXEC_ERR_TILE;
}

tigris_exec_error_t band_prepare(BandRun &run)
{
    RunContext &ctx = *run.ctx;
    const int32_t *in = info(run);
    const tigris_stage_t &h = head_stage(run);
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, &h);
    for (uint16_t i = 0; i < h.inputs_count; ++i) {
        const uint16_t t = ins[i];
        if (!first_listing(ins, i) || in[2 * t] != kWholeSpace) continue;
        if (mem_load(ctx.mem, t, ctx.plan->tensors[t].size_bytes) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    }
    tigris_exec_error_t rc = run.line_buffered ? alloc_line_buffers(run) : TIGRIS_EXEC_OK;
    for (uint16_t k = 0; k < run.n; ++k) run.spaces[k].prev_r0 = run.spaces[k].prev_r1 = 0;
    mem_reserve_fast(ctx.mem);
    return rc;
}

tigris_exec_error_t band_run_all(BandRun &run, uint32_t rows, uint32_t cols)
{
    const int32_t R = run.spaces[run.n - 1].rows;
    const int32_t C = is_hw(run) ? run.spaces[run.n - 1].cols : 1;
    const int32_t b = rows < 1 ? 1 : (rows > (uint32_t)R ? R : (int32_t)rows);
    const int32_t w = !is_hw(run) || cols < 1 || cols > (uint32_t)C ? C : (int32_t)cols;
    uint32_t tile = 0;
    for (int32_t o0 = 0; o0 < R; o0 += b) {
        for (int32_t q0 = 0; q0 < C; q0 += w) {
            const int32_t o1 = o0 + b < R ? o0 + b : R, q1 = q0 + w < C ? q0 + w : C;
            if (!cost_band_ranges(run.src, run.spaces, run.n, o0, o1, q0, q1)) return TIGRIS_EXEC_ERR_TILE;
            tigris_exec_error_t rc = run_tile(run, tile, tile == 0);
            ++tile;
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
    }
    run.tiles = tile;
    return TIGRIS_EXEC_OK;
}

void band_finish(BandRun &run)
{
    RunContext &ctx = *run.ctx;
    const tigris_plan_t *plan = ctx.plan;
    memset(&ctx.mem->tile, 0, sizeof(ctx.mem->tile));
    for (uint16_t s = run.pctx.head; s <= run.pctx.last; ++s) null_stage_op_outputs(ctx, &plan->stages[s]);
    const tigris_stage_t &h = head_stage(run), &l = last_stage(run);
    const uint16_t *ins = tigris_stage_inputs(plan, &h), *outs = tigris_stage_outputs(plan, &l);
    for (uint16_t i = 0; i < l.outputs_count; ++i) ctx.mem->tensor_ptrs[outs[i]] = ctx.ws.stage_out[i];
    for (uint16_t i = h.inputs_count; i > 0; --i) ctx.mem->tensor_ptrs[ins[i - 1]] = ctx.ws.stage_in[i - 1];
}

}  // namespace tigris_rt
