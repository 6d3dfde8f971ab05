/*
 * TiGrIS runtime — memory manager over caller-owned arenas: a fast arena
 * (SRAM) and a slow buffer (PSRAM). Bump allocation, a reserved prefix that
 * survives resets, compaction, and load/spill between the two pools.
 */
#ifndef TIGRIS_MEM_H
#define TIGRIS_MEM_H

#include "tigris.h"
#include "tigris_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TIGRIS_MEM_OK = 0,
    TIGRIS_MEM_ERR_NULL = -1,
    TIGRIS_MEM_ERR_OOM = -2,
    TIGRIS_MEM_ERR_BAD_INDEX = -3,
    TIGRIS_MEM_ERR_NOT_SET = -4
} tigris_mem_error_t;

/*
 * Tile context: how a kernel call is banded. When `active` is 0 kernels take
 * every extent from the plan's tensor shapes. When it is 1, tensor pointers
 * point at band buffers and kernels take the banded geometry from here; the
 * plan's tensor shapes still give batch, channels and the full extents.
 *
 * Band buffers hold N x rows x cols x C elements (channels last), where rows is
 * in_row_start + in_h for an input and out_row_start + out_h for an output,
 * and cols is in_w / out_w when width_tiled, else the tensor's full width.
 *
 * Spatial ops (conv, depthwise, pools, conv1d): the input window is buffer
 * rows [in_row_start, in_row_start + in_h); output row r (0 <= r < out_h) is
 * written to buffer row out_row_start + r and reads window rows from
 * r * stride_h - pad_top; window rows outside [0, in_h) are padding
 * (pad_top/pad_bottom are this band's effective paddings). With width_tiled the
 * same holds for columns with in_w, out_w, pad_left, pad_right.
 * Resize and conv-transpose map output to input through full-tensor indices:
 * out_row0/out_col0 is the first computed output row/column and
 * in_row0/in_col0 the first row/column of the input window.
 * Pointwise ops (unary, binary, concat, softmax over channels, layer norm):
 * rows [in_row_start, in_row_start + out_h) of each input produce rows
 * [out_row_start, out_row_start + out_h) of the output.
 * row_tiled: a rank-2 [rows, cols] matrix op computes out_h rows; the banded
 * operand holds those rows only, the second operand of MatMul/Gemm is whole.
 * Global reductions banded by input (reduce_first/reduce_last): each call sees
 * in_h input rows, accumulates into reduce_acc (int32 for int8, float for
 * float32; one per batch x channel), zeroes it on the first band and writes
 * the output on the last. reduce_flat (BY_INPUT mode FLAT): the input buffer holds
 * input elements [in_row0, in_row0 + in_h) in memory order (any rank, any AXES); each
 * is combined into the accumulator of its output element, so every output element sees
 * its inputs in the whole kernel's order.
 * chan_tiled: a channel band; every banded tensor holds channels
 * [chan0, chan0 + chans) of its rows (every column), packed; channel-separable
 * kernels (depthwise, pools, elementwise) index weights and broadcast operands
 * by the global channel. chan_mix (with chan_tiled): the op mixes channels
 * (a Conv of one group in an output-channel band): its input holds every
 * channel, its output channels [chan0, chan0 + chans) of the layer's, and it
 * reads the weights, bias and quantization factors of those channels.
 * chan_partial (with chan_tiled, without chan_mix): an input-channel band
 * (CHANNELS mode INPUT). A FullyConnected's: its input buffer holds rows
 * [out_row_start, out_row_start + out_h) x columns [chan0, chan0 + chans) of
 * the [N, K] matrix, packed; its output buffer is the whole output. The op
 * adds those columns' products to the output rows (reduce_first: starting
 * from zero) and, on reduce_last, adds the bias and applies the activation.
 * A 1x1 Conv's (same fields): its input buffer holds pixels [out_row_start,
 * out_row_start + out_h) of the [N*H*W, C_in] matrix x channels [chan0, chan0 +
 * chans), packed; its output buffer only those pixels x every output channel. The
 * op starts from the bias (reduce_first), adds the channels' products and, on
 * reduce_last, applies the activation (the Conv kernel's order for one tap).
 * Another float32 Conv's (without row_tiled): its input buffer holds channels
 * [chan0, chan0 + chans) of in_h input rows, its output buffer out_h rows x every
 * output channel; the kernel sums channel blocks of 4 in the whole Conv's order.
 * int8 (FullyConnected, 1x1 Conv): the int32 sums live in reduce_acc (the band's
 * rows x every output channel) and are requantized into the output on reduce_last.
 * concat_tiled: a Concat banded along its own axis; the output buffer holds
 * units [out_row0, out_row0 + out_h) of that axis of every block of the axes
 * before it, packed; input k's buffer holds, packed the same way, the units of
 * its own that fall in that range (none: the input is not read).
 * transposed_tile: the executor gathers a packed band; the kernel transposes
 * t_outer blocks of [t_rows, t_cols] into [t_cols, t_rows], each element
 * t_block elements wide.
 */
typedef struct {
    uint8_t active;
    uint8_t width_tiled;
    uint8_t row_tiled;
    uint8_t transposed_tile;
    uint8_t reduce_first;
    uint8_t reduce_last;
    uint8_t band_on_columns;
    uint8_t chan_tiled;
    int32_t in_h, in_w;
    int32_t out_h, out_w;
    int32_t pad_top, pad_bottom, pad_left, pad_right;
    int32_t in_row_start;
    int32_t out_row_start;
    int32_t in_row0, in_col0;
    int32_t out_row0, out_col0;
    int32_t t_outer, t_rows, t_cols, t_block;
    void *reduce_acc;
    int32_t chan0, chans;
    uint8_t concat_tiled;
    uint8_t chan_mix;
    uint8_t chan_partial;
    uint8_t reduce_flat;
} tigris_tile_ctx_t;

struct tigris_exec_stats;

typedef struct {
    void **tensor_ptrs;
    uint16_t num_tensors;
    uint8_t *fast_base;
    uint32_t fast_size;
    uint32_t fast_used;
    uint32_t fast_reserved;
    uint32_t fast_peak;
    uint8_t *slow_base;
    uint32_t slow_size;
    uint32_t slow_used;
    uint32_t slow_peak;
    struct tigris_exec_stats *stats;
#ifdef TIGRIS_TRACE
    tigris_trace_fn trace_fn;
    void *trace_ctx;
    uint16_t trace_stage;
    uint8_t trace_path;
#endif
    tigris_tile_ctx_t tile;
} tigris_mem_t;

/* Initialise over caller-owned buffers; zeroes the pointer table and aligns both bump
 * offsets to TIGRIS_TENSOR_ALIGN. slow_buf may be NULL when slow_size is 0. */
tigris_mem_error_t tigris_mem_init(tigris_mem_t *mem, void **tensor_ptrs, uint16_t num_tensors, void *fast_buf,
                                   uint32_t fast_size, void *slow_buf, uint32_t slow_size);

/* Bump-allocate a tensor in the slow buffer and point tensor_ptrs[tensor_idx] at it. */
tigris_mem_error_t tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes);

static inline void *tigris_mem_tensor_ptr(const tigris_mem_t *mem, uint16_t idx)
{
    if (mem == NULL || mem->tensor_ptrs == NULL || idx >= mem->num_tensors) return NULL;
    return mem->tensor_ptrs[idx];
}

const char *tigris_mem_error_str(tigris_mem_error_t err);

/* Report every allocation, load, spill, move, kernel call and reset to `fn`
 * (runtime built with TIGRIS_TRACE; otherwise does nothing). NULL stops it. */
void tigris_mem_set_trace(tigris_mem_t *mem, tigris_trace_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_MEM_H */
