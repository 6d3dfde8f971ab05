// Operand access and geometry for the int8 kernels: tensor records, quantization,
// data pointers, and the region of a tensor a (possibly banded) kernel call covers.
// See tigris_mem.h for the tile-context contract these views implement.
#pragma once

#include <stdint.h>

#include "tigris_executor.h"

namespace tigris_s8 {

constexpr int kMaxRank = 6;
constexpr int kError = -1;
// A kernel's answer "plain byte movement: let the float kernels run it".
constexpr int kDelegate = -2;

// One operand of an op: its record, shape, quantization and data.
struct Operand {
    uint16_t index = TIGRIS_NONE;      // tensor index, TIGRIS_NONE for a constant
    uint8_t dtype = 0;
    uint8_t rank = 0;
    int32_t dims[kMaxRank] = {};
    uint32_t elements = 0;
    float scale = 1.0f;                // 1 and 0 when unquantized
    int32_t zero_point = 0;
    bool quantized = false;
    const tigris_quant_param_t *quant = nullptr;
    uint8_t *data = nullptr;           // tensor buffer (band buffer when tiled)
};

// Input / output `i` of `op` as a tensor operand; kError when the index, record,
// rank or buffer is unusable.
int input_operand(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_mem_t *mem,
                  int i, Operand *out);
int output_operand(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_mem_t *mem,
                   int i, Operand *out);

// Same quantization (TFLM's tolerance: |scale difference| <= 1e-6, equal zero points).
bool same_quant(const Operand &a, const Operand &b);

// An n-d window of a byte buffer: element (i0..ik) lives at base[sum(i * strides)].
struct View {
    int rank = 0;
    int32_t dims[kMaxRank] = {};
    int32_t strides[kMaxRank] = {};    // in elements
    uint8_t *base = nullptr;           // first element (byte address)
    uint32_t count() const;
};

// The part of `t` this call covers. Untiled: the whole tensor. Tiled (tile.active):
// out_h rows of the row axis (axis 1 of rank 3/4, axis 0 of rank 2) starting at
// in_row_start (inputs) / out_row_start (outputs) of the band buffer, whose rows are
// row_start + in_h (inputs; out_h when in_h is 0) or row_start + out_h (outputs), and
// whose columns are in_w / out_w when width_tiled. kError when the rank cannot be banded.
int band_view(const Operand &t, const tigris_tile_ctx_t &tile, bool is_output, View *v);

// A view of `t` broadcast to `out` (numpy rules, trailing axes aligned): axes where
// `t` has extent 1 get stride 0. kError when the shapes do not broadcast.
int broadcast_view(const View &t, const View &out, View *v);

// Visit every element of `out` in row-major order with the matching offsets into up
// to two operand views of the same rank. fn(out_offset, a_offset, b_offset).
template <typename Fn>
void for_each_element(const View &out, const View *a, const View *b, Fn fn)
{
    int32_t idx[kMaxRank] = {};
    const int rank = out.rank;
    const uint32_t n = out.count();
    int32_t oo = 0, ao = 0, bo = 0;
    for (uint32_t e = 0; e < n; e++) {
        fn(oo, ao, bo);
        for (int d = rank - 1; d >= 0; d--) {
            idx[d]++;
            oo += out.strides[d];
            if (a) ao += a->strides[d];
            if (b) bo += b->strides[d];
            if (idx[d] < out.dims[d]) break;
            oo -= out.strides[d] * out.dims[d];
            if (a) ao -= a->strides[d] * out.dims[d];
            if (b) bo -= b->strides[d] * out.dims[d];
            idx[d] = 0;
        }
    }
}

// Geometry of a window op (conv, depthwise, pools) on NHWC (rank 4) or NLC (rank 3,
// W = 1) tensors, with the band layout of tigris_mem.h applied when tiled.
struct Spatial {
    int32_t batches = 0, in_c = 0, out_c = 0;
    int32_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;     // window / computed extents
    int32_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int32_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
    int32_t in_buf_rows = 0, in_buf_cols = 0, in_row0 = 0;
    int32_t out_buf_rows = 0, out_buf_cols = 0, out_row0 = 0;

    // Element offset of (n, window row r, column c, channel 0).
    int64_t in_offset(int32_t n, int32_t r, int32_t c) const
    {
        return (((int64_t)n * in_buf_rows + in_row0 + r) * in_buf_cols + c) * in_c;
    }
    int64_t out_offset(int32_t n, int32_t r, int32_t c) const
    {
        return (((int64_t)n * out_buf_rows + out_row0 + r) * out_buf_cols + c) * out_c;
    }
};

// Spatial geometry of `op` from its input/output shapes, spatial block and the tile
// context; kError on ranks other than 3/4, a zero stride or inconsistent batches.
int spatial_geometry(const tigris_op_t *op, const Operand &in, const Operand &out,
                     const tigris_tile_ctx_t &tile, Spatial *g);

// Output requantization factors of channel c from the output's quant param (per-tensor
// when it has one channel); false when the output carries none.
bool output_requant(const tigris_plan_t *plan, const Operand &out, int32_t c,
                    int32_t *multiplier, int *shift);

// The op's weight (or bias) bytes when present and at least `bytes` long, else nullptr.
const uint8_t *op_weight_bytes(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t bytes);
const uint8_t *op_bias_bytes(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t bytes);

// Little-endian reads of attribute payloads and weight blobs (possibly unaligned).
int32_t read_i32(const uint8_t *p);
float read_f32(const uint8_t *p);

}  // namespace tigris_s8
