// Band rules of CHANNELS: separable, output-channel and input-channel bands (the conditions
// a stage meets for each mode; tile facts and access rules stay in band_rules.cpp).
#include <stdint.h>

#include "ops/op_table.h"
#include "plan/band_rules_internal.h"

namespace tigris_rt {
namespace band_detail {

namespace {

// Whether tensor t has the channel stage's dtype: float32, or (an int8 stage) int8 with a
// quant param, which the int8 kernels require.
bool channel_stage_dtype(const tigris_plan_t *plan, uint16_t t, uint8_t dtype)
{
    const tigris_tensor_t &r = plan->tensors[t];
    if (r.dtype != dtype) return false;
    return dtype == TIGRIS_DTYPE_FLOAT32 || tigris_tensor_quant(plan, &r) != nullptr;
}

}  // namespace

// Every op keeps each channel to itself (mode SEPARABLE): at most one channel-spatial op
// (Depthwise with one output channel per input channel, MaxPool, AvgPool), unary and binary
// elementwise ops otherwise (none with an axis attribute), rank-4 stage I/O, every tensor
// float32 or every tensor quantized int8 (an int8 op then has an int8 kernel). The kernels
// index weights, biases, per-channel requantization and broadcast operands by the global
// channel. Mode OUTPUT: the one spatial op is a Conv of one group or, on rank-2 stages, a
// FullyConnected (channel_mix_op); the ops before it see every input channel, the op and
// the ops after it a band of its output's (rank 2: rows along axis 0, columns along axis 1).
bool channels_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    if (s->inputs_count == 0 || s->outputs_count == 0) return false;
    // Rank 4 (NHWC), or rank 2 around a FullyConnected: rows x output columns (its input,
    // of any rank, seen as [dim 0, the rest]; every other tensor rank 2).
    const uint8_t rank = plan->tensors[rd_u16(plan->index_pool + s->outputs_off)].ndim;
    if (rank == 2) {  // the ops' checks below bound the inputs
        for (uint32_t k = 0; k < s->outputs_count; k++)
            if (plan->tensors[rd_u16(plan->index_pool + s->outputs_off + k)].ndim != 2) return false;
    } else if (rank != 4 || !stage_io_rank(plan, s, rank)) {
        return false;
    }
    int32_t spatial = -1;
    bool mix = false;
    const uint8_t dtype = plan->tensors[rd_u16(plan->index_pool + s->inputs_off)].dtype;
    if (dtype != TIGRIS_DTYPE_FLOAT32 && dtype != TIGRIS_DTYPE_INT8) return false;
    for (uint32_t j = 0; j < s->ops_count; j++) {
        const tigris_op_t &op = op_at(plan, s, j);
        if (op.num_inputs < 1 || op.num_outputs < 1 || ops::has_band(op.op_type, ops::kBandAxes)) return false;
        if (dtype == TIGRIS_DTYPE_INT8 &&
            (ops::op_info(op.op_type) == nullptr || ops::op_info(op.op_type)->s8 == ops::S8::kNone))
            return false;
        for (uint32_t k = 0; k < op.num_inputs; k++)
            if (!channel_stage_dtype(plan, op_in(plan, op, k), dtype)) return false;
        for (uint32_t k = 0; k < op.num_outputs; k++)
            if (!channel_stage_dtype(plan, op_out(plan, op, k), dtype)) return false;
        const bool sep = ops::has_band(op.op_type, ops::kBandChannelSpatial), mixes = channel_mix_op(plan, &op);
        for (uint32_t k = 0; rank == 2 && k < op.num_inputs + op.num_outputs; k++) {
            const uint16_t t = k < op.num_inputs ? op_in(plan, op, k) : op_out(plan, op, k - op.num_inputs);
            if (plan->tensors[t].ndim != 2 && !is_constant(plan, t) && !(mixes && k == 0)) return false;
        }
        if (sep || mixes) {
            const uint16_t in = op_in(plan, op, 0), out = op_out(plan, op, 0);
            if (spatial >= 0 || plan->tensors[out].ndim != rank || (rank == 4 && plan->tensors[in].ndim != 4) ||
                (sep && (rank != 4 || tensor_dim(plan, in, 3) != tensor_dim(plan, out, 3))))
                return false;
            spatial = (int32_t)j;
            mix = mixes;
        } else if (!band_unary_op(op.op_type) && !band_binary_op(op.op_type)) {
            return false;
        }
    }
    uint16_t out = rd_u16(plan->index_pool + s->outputs_off);
    b->halo = 0;
    if (spatial >= 0) {
        const tigris_op_t &op = op_at(plan, s, (uint32_t)spatial);
        BandGeom g;
        if (!channel_band_geom(plan, &op, &g)) return false;
        out = op_out(plan, op, 0);
        b->halo = band_halo(&g);
    }
    if (rank == 2 && !mix) return false;  // a rank-2 stage without a FullyConnected is ROWS's
    b->mode = mix ? TIGRIS_CHANNELS_MODE_OUTPUT : TIGRIS_CHANNELS_MODE_SEPARABLE;
    b->spatial = spatial;
    b->axis = rank == 4 ? 1 : 0;
    b->extent = (uint32_t)tensor_dim(plan, out, b->axis);
    b->col_extent = (uint32_t)tensor_dim(plan, out, rank - 1u);
    b->rank = rank;
    return true;
}

namespace {

// Input and output both float32, or both int8 with quant params (the int8 kernel keeps an
// int32 accumulator block and requantizes after the last band).
bool input_channels_dtype(const tigris_plan_t *plan, uint16_t in, uint16_t out)
{
    const uint8_t dt = plan->tensors[in].dtype;
    return (dt == TIGRIS_DTYPE_FLOAT32 || dt == TIGRIS_DTYPE_INT8) && channel_stage_dtype(plan, in, dt) &&
           channel_stage_dtype(plan, out, dt);
}

// A 1x1 Conv (one group, stride 1, no padding; dilation reads nothing) is the same
// product over the matrix [N*H*W, C_in] of its NHWC input: rows are pixels (extent N*H*W),
// columns input channels; its output is kept a row block at a time (see the executor).
bool conv1x1_input_channels_holds(const tigris_plan_t *plan, const tigris_stage_t *s, const tigris_op_t *op,
                                  StageBand *b)
{
    const tigris_spatial_t &sp = op->spatial;
    if (op->num_inputs != 1 || sp.kernel_h != 1 || sp.kernel_w != 1 || sp.stride_h != 1 || sp.stride_w != 1 ||
        sp.pad_top || sp.pad_bottom || sp.pad_left || sp.pad_right || sp.group > 1)
        return false;
    const uint16_t in = op_in(plan, *op, 0), out = op_out(plan, *op, 0);
    if (is_constant(plan, in) || rd_u16(plan->index_pool + s->outputs_off) != out) return false;
    const tigris_tensor_t &x = plan->tensors[in], &y = plan->tensors[out];
    if (!input_channels_dtype(plan, in, out) || x.ndim != 4 || y.ndim != 4) return false;
    for (uint32_t a = 0; a < 3; ++a)
        if (tensor_dim(plan, in, a) != tensor_dim(plan, out, a)) return false;
    const uint64_t rows = prod_dims(plan, in, 0, 3), k = (uint64_t)tensor_dim(plan, in, 3);
    if (rows < 1 || rows > INT32_MAX || k < 1 || k > INT32_MAX || tensor_dim(plan, out, 3) < 1) return false;
    b->mode = TIGRIS_CHANNELS_MODE_INPUT;
    b->spatial = 0;
    b->axis = 0;
    b->extent = (uint32_t)rows;
    b->col_extent = (uint32_t)k;
    b->rank = 2;
    b->halo = 0;
    return true;
}

// Any other float32 Conv of one group (a KxK window, strides, dilation, padding; NHWC): rows
// of the output (axis 1, extent H_out, the window's halo) x input channels (col_extent C_in).
// A block of output rows is kept while the input-channel bands of the input rows it reads are
// added to it. The kernel sums channels in aligned blocks of TIGRIS_CONV_CHANNEL_BLOCK (taps
// inside a block), so the band width must be a multiple of it or cover every channel: the
// partial sums then add up to the whole op's floats. Every output row reads an input row.
bool conv_input_channels_holds(const tigris_plan_t *plan, const tigris_stage_t *s, const tigris_op_t *op, StageBand *b)
{
    const tigris_spatial_t &sp = op->spatial;
    if (op->num_inputs != 1 || sp.group > 1) return false;
    const uint16_t in = op_in(plan, *op, 0), out = op_out(plan, *op, 0);
    if (is_constant(plan, in) || rd_u16(plan->index_pool + s->outputs_off) != out) return false;
    const tigris_tensor_t &x = plan->tensors[in], &y = plan->tensors[out];
    if (x.dtype != TIGRIS_DTYPE_FLOAT32 || y.dtype != TIGRIS_DTYPE_FLOAT32 || x.ndim != 4 || y.ndim != 4) return false;
    BandGeom g;
    if (!op_band_geom(op, 0, &g) || g.kind != BAND_GEOM_WINDOW) return false;
    const int32_t h_in = tensor_dim(plan, in, 1), h_out = tensor_dim(plan, out, 1), c = tensor_dim(plan, in, 3);
    if (tensor_dim(plan, in, 0) != tensor_dim(plan, out, 0) || h_in < 1 || h_out < 1 || c < 1 ||
        tensor_dim(plan, out, 3) < 1)
        return false;
    BandRows first, last;
    band_input_rows(&g, h_in, 0, 1, &first);
    band_input_rows(&g, h_in, h_out - 1, h_out, &last);
    if (first.in1 <= first.in0 || last.in1 <= last.in0) return false;  // a row of padding only
    const uint32_t w = tigris_rt::stage_tiles(plan, s).tile_width;
    if (w < (uint32_t)c && (w == 0 || w % TIGRIS_CONV_CHANNEL_BLOCK != 0)) return false;
    b->mode = TIGRIS_CHANNELS_MODE_INPUT;
    b->spatial = 0;
    b->axis = 1;
    b->extent = (uint32_t)h_out;
    b->col_extent = (uint32_t)c;
    b->rank = 4;
    b->halo = band_halo(&g);
    return true;
}

}  // namespace

// Input-channel bands (CHANNELS mode INPUT): one FullyConnected whose output is [N, OC] and
// whose input (of rank >= 2, dim 0 = N) is read as the matrix [N, K]; weights (and bias)
// constant. Tiles are rows x input columns; each adds its columns' products to the whole
// output (kept in fast memory), the bias and activation after the last column. float32, or
// int8 (also a 1x1 Conv): an int32 accumulator block of the tile's rows x OC is kept besides
// the int8 output, the bias and requantization applied after the last band. A KxK Conv is
// float32 only.
bool input_channels_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    const tigris_op_t *op = single_op(plan, s);
    if (op && op->op_type == TIGRIS_OP_CONV && s->outputs_count == 1) {
        const tigris_spatial_t &sp = op->spatial;
        const bool pixels = sp.kernel_h == 1 && sp.kernel_w == 1 && sp.stride_h == 1 && sp.stride_w == 1 &&
                            !sp.pad_top && !sp.pad_bottom && !sp.pad_left && !sp.pad_right;
        return pixels ? conv1x1_input_channels_holds(plan, s, op, b) : conv_input_channels_holds(plan, s, op, b);
    }
    if (!op || op->op_type != TIGRIS_OP_FULLY_CONN || op->num_inputs != 1 || s->outputs_count != 1) return false;
    const uint16_t in = op_in(plan, *op, 0), out = op_out(plan, *op, 0);
    if (is_constant(plan, in) || rd_u16(plan->index_pool + s->outputs_off) != out) return false;
    const tigris_tensor_t &x = plan->tensors[in], &y = plan->tensors[out];
    if (!input_channels_dtype(plan, in, out)) return false;
    if (y.ndim != 2 || x.ndim < 2 || tensor_dim(plan, in, 0) != tensor_dim(plan, out, 0)) return false;
    const uint64_t k = prod_dims(plan, in, 1, x.ndim);
    if (tensor_dim(plan, out, 0) < 1 || k < 1 || k > INT32_MAX) return false;
    b->mode = TIGRIS_CHANNELS_MODE_INPUT;
    b->spatial = 0;
    b->axis = 0;
    b->extent = (uint32_t)tensor_dim(plan, out, 0);
    b->col_extent = (uint32_t)k;
    b->rank = 2;
    b->halo = 0;
    return true;
}

}  // namespace band_detail
}  // namespace tigris_rt
