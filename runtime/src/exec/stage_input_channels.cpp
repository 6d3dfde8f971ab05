// Input-channel bands (CHANNELS mode INPUT) of a FullyConnected: the whole output
// is allocated once in fast memory (kept under fast_reserved); each tile loads rows [r0, r1)
// x input columns [k0, k1) of the input, seen as the matrix [N, K], and the kernel adds
// their products to those output rows (chan_partial; the first column band starts from
// zero, the last adds the bias and applies the activation). Rows outermost, columns inner.
// The output is spilled after the last tile. Peak = plan_stage_peak (the record's band).
// int8 (a FullyConnected or 1x1 Conv): an int32 accumulator block of the row band (rows x
// OC) sits after the output under fast_reserved; the last column band adds the bias and
// requantizes into the output rows.
// A 1x1 Conv (one group, stride 1, unpadded) is the same product over the matrix
// [N*H*W, C_in] of its input (box matrix 2: one row per pixel); it keeps only the block of
// output pixels [r0, r1) in fast memory, spilled into the slow output after its last column
// band: a row block of the output, not the whole of it. Any other Conv (a KxK window, strides,
// padding, dilation; float32) keeps a block of output rows while the input-channel bands of the input
// rows it reads (halo included) are added to it (conv_input_channel_tiles).
#include <string.h>

#include "exec/exec_internal.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"
#include "plan/band_cost_plan.h"
#include "plan/band_rules.h"

namespace tigris_rt {

namespace {

// One input-channel band [k0, k1) of `chans` channels: loads `box` of input `in` (slow data
// `src`), runs the op with the row fields of `rows` and the band's channel fields, clears the
// tile context and frees the band's fast memory.
tigris_exec_error_t run_input_band(RunContext &ctx, const tigris_plan_t *kplan, uint16_t op_index, uint16_t in,
                                   const void *src, const MemBox &box, const tigris_tile_ctx_t &rows, int32_t k0,
                                   int32_t k1, int32_t chans)
{
    ctx.mem->tensor_ptrs[in] = (void *)src;
    tigris_exec_error_t rc =
        mem_load_box(ctx.mem, ctx.plan, in, box) == TIGRIS_MEM_OK ? TIGRIS_EXEC_OK : TIGRIS_EXEC_ERR_MEM;
    if (rc == TIGRIS_EXEC_OK) {
        tigris_tile_ctx_t &t = ctx.mem->tile;
        t = rows;
        t.active = 1;
        t.chan_tiled = 1;
        t.chan_partial = 1;
        t.chan0 = k0;
        t.chans = k1 - k0;
        t.reduce_first = k0 == 0;
        t.reduce_last = k1 == chans;
        rc = call_kernel(ctx, kplan, op_index);
        memset(&t, 0, sizeof(t));
    }
    mem_reset_fast(ctx.mem);
    ctx.stats->total_tiles++;
    return rc;
}

// conv_out: the slow output a 1x1 Conv's row blocks are spilled into (nullptr: a
// FullyConnected, whose whole output is already allocated and reserved in fast memory).
// out_c: output elements per row (out_row_bytes their bytes). int8 (acc): an int32
// accumulator of the row block (rows x out_c) is allocated after the block and kept across
// its column bands (the kernel's reduce_acc).
tigris_exec_error_t input_channel_tiles(RunContext &ctx, const tigris_plan_t *kplan, uint16_t op_index, uint16_t in,
                                        const void *src, uint32_t N, uint32_t K, uint32_t rows, uint32_t cols,
                                        uint16_t out, void *conv_out, uint32_t out_c, uint32_t out_row_bytes, bool acc)
{
    uint32_t tile = 0;
    const uint8_t matrix = conv_out != nullptr ? 2 : 1;
    const uint32_t reserved = ctx.mem->fast_reserved;
    for (uint32_t r0 = 0; r0 < N; r0 += rows) {
        const uint32_t r1 = r0 + rows < N ? r0 + rows : N;
        if (conv_out != nullptr) {  // this row block of the output, kept across its column bands
            if (mem_alloc_fast(ctx.mem, out, (r1 - r0) * out_row_bytes) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
            mem_reserve_fast(ctx.mem);
        }
        uint8_t *acc_block = nullptr;
        if (acc) {
            if (mem_bump_fast(ctx.mem, (r1 - r0) * out_c * 4u, &acc_block) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
            mem_reserve_fast(ctx.mem);
        }
        tigris_tile_ctx_t row_fields;
        memset(&row_fields, 0, sizeof(row_fields));
        row_fields.row_tiled = 1;  // rows [r0, r1): the input box holds them from its row 0
        row_fields.out_h = row_fields.in_h = (int32_t)(r1 - r0);
        row_fields.out_row_start = row_fields.out_row0 = row_fields.in_row0 = (int32_t)r0;
        row_fields.reduce_acc = acc_block;
        for (uint32_t k0 = 0; k0 < K; k0 += cols, ++tile) {
            const uint32_t k1 = k0 + cols < K ? k0 + cols : K;
            trace_tile_begin(ctx.mem, tile, (int32_t)r0, (int32_t)r1);
            const MemBox box{(int32_t)r0, (int32_t)r1, 0, 1, (int32_t)k0, (int32_t)k1, matrix};
            tigris_exec_error_t rc =
                run_input_band(ctx, kplan, op_index, in, src, box, row_fields, (int32_t)k0, (int32_t)k1, (int32_t)K);
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
        if (conv_out != nullptr) {
            const MemBox obox{(int32_t)r0, (int32_t)r1, 0, 1, 0, (int32_t)out_c, 2};
            if (mem_spill_box(ctx.mem, ctx.plan, out, conv_out, obox) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
        }
        if (conv_out != nullptr || acc) {
            ctx.mem->fast_reserved = reserved;
            mem_reset_fast(ctx.mem);
        }
    }
    return TIGRIS_EXEC_OK;
}

// A KxK Conv (rank-4 form): blocks of `rows` output rows (every batch, column and output
// channel) kept in fast memory; for each, the input rows its windows read (clipped, the
// block's padding passed to the kernel) are loaded one band of `cols` input channels at a
// time and their products added (the kernel's channel blocks: see band_rules_channels.cpp);
// the block is spilled into the slow output after its last band.
tigris_exec_error_t conv_input_channel_tiles(RunContext &ctx, const tigris_plan_t *kplan, uint16_t op_index,
                                             const void *src, void *full, uint32_t rows, uint32_t cols)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_op_t &op = plan->ops[op_index];
    const uint16_t in = tigris_op_inputs(plan, &op)[0], out = tigris_op_outputs(plan, &op)[0];
    const tigris_tensor_t &xt = plan->tensors[in], &yt = plan->tensors[out];
    const int32_t *xs = tigris_tensor_shape(plan, &xt), *ys = tigris_tensor_shape(plan, &yt);
    const int32_t h_out = ys[1], c = xs[3];
    BandGeom g;
    if (!op_band_geom(&op, 0, &g)) return TIGRIS_EXEC_ERR_TILE;
    const uint32_t out_row_bytes = (uint32_t)ys[0] * (uint32_t)ys[2] * (uint32_t)ys[3] * (uint32_t)sizeof(float);
    const uint32_t reserved = ctx.mem->fast_reserved;
    uint32_t tile = 0;
    for (int32_t r0 = 0; r0 < h_out; r0 += (int32_t)rows) {
        const int32_t r1 = r0 + (int32_t)rows < h_out ? r0 + (int32_t)rows : h_out;
        BandRows ir;
        band_input_rows(&g, xs[1], r0, r1, &ir);
        if (mem_alloc_fast(ctx.mem, out, (uint32_t)(r1 - r0) * out_row_bytes) != TIGRIS_MEM_OK)
            return TIGRIS_EXEC_ERR_MEM;
        mem_reserve_fast(ctx.mem);
        tigris_tile_ctx_t row_fields;
        memset(&row_fields, 0, sizeof(row_fields));
        row_fields.in_h = ir.in1 - ir.in0;
        row_fields.out_h = r1 - r0;
        row_fields.pad_top = ir.pad_before;
        row_fields.pad_bottom = ir.pad_after;
        row_fields.in_row0 = ir.in0;
        row_fields.out_row0 = r0;
        for (int32_t k0 = 0; k0 < c; k0 += (int32_t)cols, ++tile) {
            const int32_t k1 = k0 + (int32_t)cols < c ? k0 + (int32_t)cols : c;
            trace_tile_begin(ctx.mem, tile, r0, r1);
            const MemBox box{ir.in0, ir.in1, 0, xs[2], k0, k1, 0};
            const tigris_exec_error_t rc = run_input_band(ctx, kplan, op_index, in, src, box, row_fields, k0, k1, c);
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
        const MemBox obox{r0, r1, 0, ys[2], 0, ys[3], 0};
        if (mem_spill_box(ctx.mem, plan, out, full, obox) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
        ctx.mem->fast_reserved = reserved;
        mem_reset_fast(ctx.mem);
    }
    return TIGRIS_EXEC_OK;
}

}  // namespace

tigris_exec_error_t run_stage_input_channels(RunContext &ctx, uint16_t s)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_stage_t &st = plan->stages[s];
    stage_begin(ctx, s, StagePath::Channels);
    null_stage_op_outputs(ctx, &st);
    StageBand band;
    tigris_plan_t kplan;
    tigris_exec_error_t rc = load_stage_weights(ctx, s, &kplan);
    if (rc == TIGRIS_EXEC_OK && stage_band(plan, &st, &band) != TIGRIS_BAND_KIND_CHANNELS) rc = TIGRIS_EXEC_ERR_TILE;
    const uint16_t op_index = tigris_stage_ops(plan, &st)[0];
    const tigris_op_t &op = plan->ops[op_index];
    const uint16_t in = tigris_op_inputs(plan, &op)[0], out = tigris_op_outputs(plan, &op)[0];
    const void *src = ctx.mem->tensor_ptrs[in];
    if (rc == TIGRIS_EXEC_OK && src == nullptr) rc = TIGRIS_EXEC_ERR_MEM;
    uint32_t rows = 1, cols = 1;
    if (rc == TIGRIS_EXEC_OK) {
        plan_stated_band(plan, s, band.extent, band.col_extent, &rows, &cols);
        CostSpace scratch[2];
        CostPeak peak;
        const uint64_t avail = ctx.mem->fast_size - ctx.mem->fast_reserved;
        if (!plan_stage_peak(plan, s, TIGRIS_TENSOR_ALIGN, scratch, 2, &peak) || peak.peak > avail)
            rc = TIGRIS_EXEC_ERR_TILE;
    }
    const tigris_tensor_t &ot = plan->tensors[out];
    const uint32_t out_c = (uint32_t)tigris_tensor_shape(plan, &ot)[ot.ndim - 1], elem = tigris_dtype_size(ot.dtype);
    const bool int8 = ot.dtype == TIGRIS_DTYPE_INT8;  // an int32 accumulator block besides the output
    if (op.op_type == TIGRIS_OP_CONV) {
        // The slow output first; row blocks of it are computed in fast memory and spilled into it.
        if (rc == TIGRIS_EXEC_OK && mem_alloc_slow(ctx.mem, out, ot.size_bytes) != TIGRIS_MEM_OK)
            rc = TIGRIS_EXEC_ERR_MEM;
        void *full = ctx.mem->tensor_ptrs[out];
        if (rc == TIGRIS_EXEC_OK && band.rank == 4)
            rc = conv_input_channel_tiles(ctx, &kplan, op_index, src, full, rows, cols);
        else if (rc == TIGRIS_EXEC_OK)
            rc = input_channel_tiles(ctx, &kplan, op_index, in, src, band.extent, band.col_extent, rows, cols, out,
                                     full, out_c, out_c * elem, int8);
        if (rc == TIGRIS_EXEC_OK) ctx.mem->tensor_ptrs[out] = full;
    } else {
        if (rc == TIGRIS_EXEC_OK && mem_alloc_fast(ctx.mem, out, ot.size_bytes) != TIGRIS_MEM_OK)
            rc = TIGRIS_EXEC_ERR_MEM;
        if (rc == TIGRIS_EXEC_OK) {
            mem_reserve_fast(ctx.mem);
            rc = input_channel_tiles(ctx, &kplan, op_index, in, src, band.extent, band.col_extent, rows, cols, out,
                                     nullptr, out_c, out_c * elem, int8);
        }
        if (rc == TIGRIS_EXEC_OK && mem_spill(ctx.mem, out, ot.size_bytes) != TIGRIS_MEM_OK) rc = TIGRIS_EXEC_ERR_MEM;
    }
    if (src != nullptr) ctx.mem->tensor_ptrs[in] = (void *)src;
    if (rc != TIGRIS_EXEC_OK) null_stage_op_outputs(ctx, &st);
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_tiled++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace tigris_rt
