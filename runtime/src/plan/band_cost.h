// The band cost model: the one byte count the executor allocates by and the compiler
// schedules by (docs/executor.md "Band cost model"). Plain functions, no heap, no globals.
//
// A banded stage (STRIPE, HW, ROWS, CHANNELS) or a chain is described neutrally as a sequence of ops
// (a chain: every member's ops, head first) over tensors, through a CostSource. The model
// walks the ops through row spaces (space 0 until the first spatial op; each spatial op
// reads the current space and writes the next, docs/plan-format.md §8), back-propagates a
// band of the last space to every space (band_input_rows, clamped, with the effective pads),
// and counts the fast bytes the executor holds:
//
//   whole   every tensor read whole (COST_WHOLE: broadcast operands, MatMul's second
//           operand), loaded once before the first band and kept (each aligned);
//   band    per band: every tensor loaded from slow (COST_LOADED) once per row space it is
//           read in, at the rows (and columns) of that space, plus every op output at the
//           rows of the space it is written in, each aligned: align(outer x rows x cols x cell);
//   peak    whole + the largest band. A line-buffered chain: whole + line buffers (every
//           band buffer but the loads in a space after a tensor's first, at the most rows
//           any band gives its space, held for the whole chain) + the largest band of those
//           later loads (reloaded per band).
//
// Decompressed weights are not counted (tigris_fast_arena_required adds them). The
// executor allocates exactly these buffers (bump allocation, reset after each band), so
// for a plan's band its fast peak above its floor and weights is exactly `peak`.
//
// The single-op layout kinds (TRANSPOSE, RESHAPE, LEADING, BY_INPUT) are counted by
// cost_layout_peak from their extent and sizes.
#pragma once

#include <stdint.h>

#include "plan/band_rules.h"

namespace tigris_rt {

// ---- Description -----------------------------------------------------------------------

enum CostTensorFlags : uint8_t {
    COST_LOADED = 0x01,    // loaded from slow: a stage input (a chain: an input of its head)
    COST_SPILLED = 0x02,   // written to slow: a stage output (a chain: of its last member)
    COST_CONSTANT = 0x04,  // a CONSTANT tensor: never in the arena
    COST_WHOLE = 0x08      // read whole by every band (see cost_broadcast_whole); a stage input
};

// A tensor seen along the banded axis: `outer` blocks of `rows` rows of `cols` cells of
// `cell` bytes (channels-last). Build it with cost_tensor().
struct CostTensor {
    uint32_t bytes;  // size_bytes of the whole tensor
    uint32_t outer;  // product of the dims before the banded axis
    uint32_t rows;   // extent of the banded axis
    uint32_t cols;   // HW: extent of the axis after it (the width); channel bands: the channels; 1 otherwise
    uint32_t cell;   // bytes of one cell: product of the remaining dims x element size
    uint8_t elem;    // element size
    uint8_t flags;   // CostTensorFlags
};

// One op: `spatial` ops (Conv, Depthwise, pools, Resize, ConvTranspose, Conv1D) read the
// current row space and write the next; every other op reads and writes the current one.
struct CostOp {
    uint8_t spatial;
    uint8_t num_inputs;
    uint8_t num_outputs;
    const uint16_t *inputs;  // tensor ids (the source's numbering)
    const uint16_t *outputs;
    BandGeom row;  // spatial: geometry along the banded axis (op_band_geom axis 0)
    BandGeom col;  // spatial, HW: along the columns (op_band_geom axis 1)
};

// Access to a stage or chain. `op(ctx, j, out)` fills op j (0 <= j < num_ops, in execution
// order); `tensor(ctx, id, out)` the tensor with that id. Pointers in a CostOp stay valid
// until the next call of `op`.
struct CostSource {
    const void *ctx;
    uint16_t num_ops;
    uint8_t hw;  // 2-D tiles: bands of rows x columns (HW: the width; channel bands: the channels)
    void (*op)(const void *ctx, uint16_t j, CostOp *out);
    void (*tensor)(const void *ctx, uint16_t id, CostTensor *out);
};

// A row space and the current band's ranges in it (global rows/columns).
struct CostSpace {
    uint16_t producer;  // the spatial op writing this space; 0xFFFF for space 0
    uint16_t reserved;
    int32_t rows, cols;           // full extents of the space (cols 1 unless HW)
    int32_t r0, r1;               // rows of the current band (cost_band_ranges)
    int32_t c0, c1;               // columns of the current band (HW), else [0, cols)
    int32_t pad_top, pad_bottom;  // producer's effective paddings for this band (window ops)
    int32_t pad_left, pad_right;
    int32_t max_rows;  // most rows any band of cost_banded_peak gives the space
    int32_t max_cols;
    int32_t prev_r0, prev_r1;  // scratch of cost_banded_peak; the executor's line-buffer state
};

// ---- Building descriptions -----------------------------------------------------------

// Round up to `align` (a power of two), saturating at UINT64_MAX / 2.
uint64_t cost_align(uint64_t bytes, uint32_t align);

// The CostTensor of a tensor with stored dims[rank] and element size `elem`, banded along
// `axis` (STRIPE, HW and chains: 1; ROWS: 0), with the next axis as columns when `hw`.
// Dims past the rank read 1.
CostTensor cost_tensor(const int32_t *dims, uint8_t rank, uint8_t elem, uint8_t axis, bool hw, uint8_t flags);

// Whether an operand (dims[rank]) of a binary elementwise op writing out_dims[out_rank] is
// read whole: right-aligned, its dims on the banded axes [lo, hi] are absent or 1 while
// the output's are not all 1 (STRIPE and chains [1,1], HW [1,2], ROWS [0,0]). A MatMul's
// second operand in a ROWS band is read whole too.
// Channel bands: a rank-4 NHWC tensor as outer N, rows H, columns C (the banded channels)
// and cells of W elements: a band of r rows and c channels holds N x r x W x c elements.
// A rank-2 [rows, columns] tensor (output-channel bands of a FullyConnected): rows x columns.
CostTensor cost_tensor_channels(const int32_t *dims, uint8_t rank, uint8_t elem, uint8_t flags);

bool cost_broadcast_whole(const int32_t *out_dims, uint8_t out_rank, const int32_t *dims, uint8_t rank, uint8_t lo,
                          uint8_t hi);

// ---- Row spaces and band ranges --------------------------------------------------------

// Number the row spaces of `src` into spaces[0, n): producer and full extents (from the
// first tensor of the space: an op output, or for space 0 the first banded tensor read).
// Returns n, or 0 when more than `capacity` spaces are needed or an extent is missing.
uint16_t cost_spaces(const CostSource &src, CostSpace *spaces, uint16_t capacity);

// The ranges of the band whose last space holds rows [o0, o1) and, for HW, columns
// [q0, q1) (else every column): each earlier space gets the input rows its successor's
// producer reads (band_input_rows, clamped to the space) and that producer's paddings.
// False when a range is empty or outside its space.
bool cost_band_ranges(const CostSource &src, CostSpace *spaces, uint16_t n, int32_t o0, int32_t o1, int32_t q0,
                      int32_t q1);

// Bytes of the current band's buffers: the loaded tensors and the op outputs (aligned).
uint64_t cost_band_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, uint32_t align);

// Bytes of the whole-read tensors (aligned, each once).
uint64_t cost_whole_bytes(const CostSource &src, uint32_t align);

// Bytes of the line buffers: every band buffer but the loads in a space after the tensor's
// first, at its space's max_rows x max_cols (aligned).
uint64_t cost_line_buffer_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, uint32_t align);

// Bytes of the current band's loads of tensors in a space after their first (a residual
// operand read again where a chain's rows are preserved); line buffers reload them per band.
uint64_t cost_reload_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, uint32_t align);

struct CostPeak {
    uint64_t peak;   // what the executor holds at most (weights excluded)
    uint64_t whole;  // cost_whole_bytes
    uint64_t band;   // largest band (line-buffered: line buffers + largest reloads)
    uint32_t tiles;  // bands run (x column tiles for HW)
};

// The peak of `src` banded by `band_rows` rows of its last space (and `band_cols` columns
// for HW; 0 = every column), line-buffered or not. Runs every band through
// cost_band_ranges, sets every space's max_rows/max_cols. Bands are clamped to [1, extent].
// False when the spaces are invalid.
bool cost_banded_peak(const CostSource &src, CostSpace *spaces, uint16_t n, uint32_t band_rows, uint32_t band_cols,
                      bool line_buffered, uint32_t align, CostPeak *out);

// ---- Single-op layout kinds ------------------------------------------------------------

// TRANSPOSE, RESHAPE, LEADING: an input slice and an output slice of `band` units (clamped
// to [1, extent]) of `extent`: align(band * in_bytes / extent) + align(band * out_bytes / extent).
// BY_INPUT (`band` input rows of `extent`): the accumulator align(4 * out_elements), the whole
// output align(out_bytes) and the input band align(band * in_bytes / extent).
// UINT64_MAX for another kind or extent 0.
uint64_t cost_layout_peak(tigris_band_kind_t kind, uint32_t extent, uint32_t band, uint32_t in_bytes,
                          uint32_t out_bytes, uint32_t out_elements, uint32_t align);

}  // namespace tigris_rt
