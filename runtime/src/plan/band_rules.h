// Band rules: how a stage is cut into bands. One definition shared by the loader (which
// verifies tile records against it), the executor (which bands stages by it) and the
// compiler (which states tile facts with it). Plain functions, no heap, no globals.
// docs/plan-format.md "Band kinds and tile facts" is the prose version of this file.
#pragma once

#include "tigris.h"
#include "tigris_loader.h"

namespace tigris_rt {

// ---- Operator classes (the band column of the operator table, ops/op_table.h) ----

// Elementwise on one tensor (a band of rows in, the same rows out).
// Tensor t is a constant (weights; never banded).
inline bool is_constant(const tigris_plan_t *plan, uint16_t t)
{
    return (plan->tensors[t].flags & TIGRIS_TENSOR_CONSTANT) != 0;
}

bool band_unary_op(uint8_t type);
// Elementwise on operands broadcast to the output's shape.
bool band_binary_op(uint8_t type);
// Normalizes along its axes (default the last): Softmax, LogSoftmax, LayerNorm, L2Normalization.
bool band_channel_op(uint8_t type);
// Any op a band carries through unchanged in rows: unary, binary (incl. Select, AddN,
// comparisons, logic, PRelu), channel ops, Concat, Split.
bool band_pointwise_op(uint8_t type);
// The op's axis attributes leave the banded axes [lo, hi] alone: Softmax, LogSoftmax,
// L2Normalization, BatchNorm, Concat, Split name no banded axis (default: the last axis),
// LayerNorm normalizes only axes after hi; Resize bands only in its integer-factor form.
// True for every other op.
bool op_axes_outside(const tigris_plan_t *plan, uint16_t op_index, uint32_t lo, uint32_t hi);
// The spatial op of a rank-4 stripe: Conv, Depthwise, MaxPool, AvgPool, Resize (nearest).
// A Concat that can band along its own axis (band kind CONCAT): one output, distinct
// inputs of its rank and dtype, equal to it on every axis but the concat axis (AXES, one
// value, or the last), whose extents add up to the output's. Sets *axis.
bool concat_band_axis(const tigris_plan_t *plan, uint16_t op_index, uint32_t *axis);

bool stripe_spatial_op(uint8_t type);
// The spatial op of a 2-D (HW) tile: the stripe set and ConvTranspose.
bool hw_spatial_op(uint8_t type);
// The spatial op of a rank-3 stripe: Conv1D.
bool line_spatial_op(uint8_t type);
// Spatial ops of a chained stage: Conv, Depthwise, MaxPool, AvgPool (counted against
// TIGRIS_MAX_SPATIAL_OPS_PER_STAGE).
bool chain_spatial_op(uint8_t type);
// Every op a chained stage may hold (the reference chain allow-list).
bool chain_op(uint8_t type);

// A transpose permutation is a swap of two contiguous axis groups after a fixed prefix of
// `p` axes: perm[p..len) = [m, q) then [p, m) then [q, len) with p <= m <= q <= len (m = p:
// the identity). Fills m and q. The LEADING band runs the kernel's transposed tile on it.
bool leading_swap(const uint8_t *perm, uint8_t len, uint8_t p, uint8_t *m, uint8_t *q);

// ---- Geometry of one spatial op along one axis ------------------------------------

enum BandGeomKind : uint8_t {
    BAND_GEOM_WINDOW = 0,      // conv/pool: out = (in + pads - eff_k) / stride + 1
    BAND_GEOM_UPSAMPLE = 1,    // nearest resize: out = in * stride
    BAND_GEOM_TRANSPOSED = 2,  // conv-transpose: the window relation inverted
    BAND_GEOM_ALL = 3          // every input index (a channel-mixing op's channels)
};

struct BandGeom {
    uint32_t eff_k;       // (kernel - 1) * dilation + 1
    uint32_t stride;      // stride, or the upscale factor
    uint32_t pad_before;  // pad_top / pad_left
    uint32_t pad_after;   // pad_bottom / pad_right
    uint8_t kind;         // BandGeomKind
};

// Geometry of a spatial op along rows (axis 0: the _h fields) or columns (axis 1: _w).
// False when the op is not spatial or its stride/kernel is zero.
bool op_band_geom(const tigris_op_t *op, int axis, BandGeom *out);

// Most input rows a band of output rows reads beyond its own share:
// window max(eff_k - stride, 0); transposed ceil((eff_k - 1) / stride); upsample 1 if stride > 1.
uint32_t band_halo(const BandGeom *g);

// A channel band's spatial op along the rows: op_band_geom (axis 0), for GlobalAvg /
// GlobalMax one output row reading every input row (a window of the input's height), for
// FullyConnected output row r reading input row r.
bool channel_band_geom(const tigris_plan_t *plan, const tigris_op_t *op, BandGeom *out);

// The spatial op of an output-channel band (CHANNELS mode OUTPUT): a Conv of one group
// with rank-4 input and output, or a FullyConnected with rank-2 input and output; each
// output channel (column) reads every input channel.
bool channel_mix_op(const tigris_plan_t *plan, const tigris_op_t *op);

// Input rows [in0, in1) a band of output rows [o0, o1) reads, clamped to [0, in_extent),
// with the padding rows the clamp removed (window only; 0 otherwise). ALL: [0, in_extent).
struct BandRows {
    int32_t in0, in1;
    int32_t pad_before, pad_after;
};
void band_input_rows(const BandGeom *g, int32_t in_extent, int32_t o0, int32_t o1, BandRows *out);

// Compose a receptive field: `acc` followed by `next` (window ops only; the chain rule
// eff_k += (k_i - 1) * stride, pad += p_i * stride, stride *= s_i).
void band_compose(BandGeom *acc, const BandGeom *next);

// ---- Band kinds of a standalone stage ---------------------------------------------

struct StageBand {
    tigris_band_kind_t kind;
    uint8_t mode;         // TIGRIS_LEADING_MODE_* for LEADING, TIGRIS_CHANNELS_MODE_* for CHANNELS, else 0
    uint8_t axis;         // serialized axis of the stage's first input the bands run along
    uint8_t rank;         // rank of the banded tensors (0 when not applicable)
    int32_t spatial;      // position in the stage's op list of its spatial op, -1 none
    uint32_t extent;      // extent the bands divide
    uint32_t halo;        // rows a band reads beyond its own
    uint32_t col_extent;  // HW: output columns the column tiles divide
};

// Whether `stage` meets the conditions of `kind` (and `mode` for LEADING; pass 0xFF to
// accept the mode the stage gives). Fills `out` when it does. Record-independent except
// the axis (HW needs TIGRIS_TILE_AXIS_HW, every other kind TIGRIS_TILE_AXIS_HEIGHT),
// for TRANSPOSE, the BAND_ON_COLUMNS flag and, for a KxK Conv's input-channel bands, the
// record's tile_width (whole channel blocks, TIGRIS_CONV_CHANNEL_BLOCK).
bool band_kind_holds(const tigris_plan_t *plan, const tigris_stage_t *stage, tigris_band_kind_t kind, uint8_t mode,
                     StageBand *out);

// The kind a standalone stage with a tileable record is banded by: stated by a schema 11
// record (and returned only when its conditions hold), derived in the executor's decision
// order before (TRANSPOSE, BY_INPUT, HW, ROWS, RESHAPE, LEADING, STRIPE). NONE for chain
// members, control-flow stages, stages without a tileable record, or no kind that holds.
tigris_band_kind_t stage_band(const tigris_plan_t *plan, const tigris_stage_t *stage, StageBand *out);

// The first kind whose conditions hold, in the executor's decision order, whatever the
// schema (what stage_band returns before schema 11). NONE as stage_band.
tigris_band_kind_t derive_band_kind(const tigris_plan_t *plan, const tigris_stage_t *stage, StageBand *out);

// Tile facts of a banded stage: tile_extent = the record's band clamped to [1, extent],
// num_tiles = ceil(extent / tile_extent) (times the column tiles of HW), halo, band_axis,
// band = kind | mode << 4. False when a value does not fit its field.
bool band_facts(const tigris_plan_t *plan, const tigris_stage_t *stage, const StageBand *band,
                tigris_tile_facts_t *out);

// The record axis with the schema-4 rule applied (a tileable v4 record bands the height).
uint8_t record_axis(const tigris_plan_t *plan, const tigris_tile_plan_v10_t *choices);

// tigris_stage_tiles (tigris.h) out of line: the runtime's one copy of that inline function,
// which every translation unit calling it would otherwise carry (plan_helpers.cpp).
tigris_tile_plan_v10_t stage_tiles(const tigris_plan_t *plan, const tigris_stage_t *stage);

// True when a stage holds an If or While op.
bool stage_holds_control_flow(const tigris_plan_t *plan, const tigris_stage_t *stage);

// ---- Band access (CHAIN_BAND / TILE_BAND) -------------------------------------------

// TIGRIS_OK or TIGRIS_ERR_TILE_BAND: every tensor a banded stage reads or writes is a
// tensor of its band (see docs/plan-format.md "Band access rules").
tigris_error_t check_tile_band(const tigris_plan_t *plan, const tigris_stage_t *stage, const StageBand *band);

// TIGRIS_OK or TIGRIS_ERR_CHAIN_BAND for the chain whose head is stage `head`.
tigris_error_t check_chain_band(const tigris_plan_t *plan, uint16_t head);

// Tensor dimension helper (shape pool of a loaded plan).
int32_t tensor_dim(const tigris_plan_t *plan, uint16_t tensor, uint32_t axis);

}  // namespace tigris_rt
