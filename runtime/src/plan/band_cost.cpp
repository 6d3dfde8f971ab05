// The band cost model (band_cost.h): row spaces, band ranges and the bytes of a band.
#include "plan/band_cost.h"

namespace tigris_rt {

namespace {

constexpr uint64_t kHuge = UINT64_MAX / 2u;

uint64_t add_sat(uint64_t a, uint64_t b) { return a > kHuge - b ? kHuge : a + b; }

uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0) return 0;
    return a > kHuge / b ? kHuge : a * b;
}

bool banded(const CostTensor &t) { return (t.flags & (COST_CONSTANT | COST_WHOLE)) == 0; }

// Whether an op in [from, j] (of op j, an input before k) already read tensor `id`.
bool read_before(const CostSource &src, uint16_t from, uint16_t j, uint8_t k, uint16_t id)
{
    for (uint16_t i = from; i <= j; ++i) {
        CostOp op;
        src.op(src.ctx, i, &op);
        const uint8_t end = i == j ? k : op.num_inputs;
        for (uint8_t m = 0; m < end; ++m)
            if (op.inputs[m] == id) return true;
    }
    return false;
}

// Bytes of tensor t holding the current band of space sp (or max rows/cols).
uint64_t band_tensor_bytes(const CostSource &src, const CostTensor &t, const CostSpace &sp, bool at_max, uint32_t align)
{
    const int64_t rows = at_max ? sp.max_rows : sp.r1 - sp.r0;
    const int64_t cols = src.hw ? (at_max ? sp.max_cols : sp.c1 - sp.c0) : (int64_t)t.cols;
    if (rows <= 0 || cols <= 0) return 0;
    return cost_align(mul_sat(mul_sat(mul_sat(t.outer, (uint64_t)rows), (uint64_t)cols), t.cell), align);
}

enum BufferSet : uint8_t {
    SET_BAND,    // every band buffer at the current band
    SET_LINES,   // line buffers: loads in their first space and op outputs, at max rows
    SET_RELOADS  // loads in a space after their first, at the current band
};

// Sum over the band buffers: a loaded tensor once per space it is read in, op outputs.
uint64_t buffers_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, BufferSet set, uint32_t align)
{
    uint64_t sum = 0;
    uint16_t space = 0, space_begin = 0;  // first op reading in the current space
    for (uint16_t j = 0; j < src.num_ops; ++j) {
        CostOp op;
        src.op(src.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) {
            CostTensor t;
            src.tensor(src.ctx, op.inputs[k], &t);
            if (!banded(t) || (t.flags & COST_LOADED) == 0 || read_before(src, space_begin, j, k, op.inputs[k]))
                continue;
            const bool first_space = space_begin == 0 || !read_before(src, 0, space_begin, 0, op.inputs[k]);
            if (set == SET_BAND || (set == SET_LINES && first_space) || (set == SET_RELOADS && !first_space))
                sum = add_sat(sum, band_tensor_bytes(src, t, spaces[space], set == SET_LINES, align));
        }
        if (op.spatial && space + 1u < n) ++space, space_begin = (uint16_t)(j + 1u);
        for (uint8_t k = 0; k < op.num_outputs && set != SET_RELOADS; ++k) {
            CostTensor t;
            src.tensor(src.ctx, op.outputs[k], &t);
            sum = add_sat(sum, band_tensor_bytes(src, t, spaces[space], set == SET_LINES, align));
        }
    }
    return sum;
}

void set_extent(CostSpace *sp, const CostTensor &t, bool hw)
{
    sp->rows = (int32_t)t.rows;
    sp->cols = hw ? (int32_t)t.cols : 1;
}

void clear_space(CostSpace *sp, uint16_t producer)
{
    *sp = CostSpace{};
    sp->producer = producer;
    sp->rows = -1;
    sp->cols = -1;
}

}  // namespace

uint64_t cost_align(uint64_t bytes, uint32_t align)
{
    const uint64_t mask = (uint64_t)(align == 0 ? 1u : align) - 1u;
    if (bytes > kHuge - mask) return kHuge;
    return (bytes + mask) & ~mask;
}

CostTensor cost_tensor(const int32_t *dims, uint8_t rank, uint8_t elem, uint8_t axis, bool hw, uint8_t flags)
{
    CostTensor t{};
    uint64_t outer = 1, cell = elem, all = elem;
    for (uint8_t a = 0; a < rank; ++a) {
        const uint64_t d = dims[a] > 0 ? (uint64_t)dims[a] : 0u;
        all *= d;
        if (a < axis) outer *= d;
        else if (a > axis + (hw ? 1u : 0u)) cell *= d;
    }
    t.bytes = all > UINT32_MAX ? UINT32_MAX : (uint32_t)all;
    t.outer = outer > UINT32_MAX ? UINT32_MAX : (uint32_t)outer;
    t.rows = axis < rank && dims[axis] > 0 ? (uint32_t)dims[axis] : 1u;
    t.cols = hw && axis + 1u < rank && dims[axis + 1] > 0 ? (uint32_t)dims[axis + 1] : 1u;
    t.cell = cell > UINT32_MAX ? UINT32_MAX : (uint32_t)cell;
    t.elem = elem;
    t.flags = flags;
    return t;
}

CostTensor cost_tensor_channels(const int32_t *dims, uint8_t rank, uint8_t elem, uint8_t flags)
{
    if (rank == 2) {  // [rows, columns]: one outer block, cells of one element
        CostTensor t = cost_tensor(dims, rank, elem, 0, true, flags);
        return t;
    }
    CostTensor t = cost_tensor(dims, rank, elem, 1, false, flags);
    if (rank != 4 || dims[3] <= 0 || dims[2] <= 0) return t;
    t.cols = (uint32_t)dims[3];
    t.cell = (uint32_t)dims[2] * elem;
    return t;
}

bool cost_broadcast_whole(const int32_t *out_dims, uint8_t out_rank, const int32_t *dims, uint8_t rank, uint8_t lo,
                          uint8_t hi)
{
    if (rank > out_rank || hi >= out_rank) return false;
    bool longer = false;
    for (uint32_t a = lo; a <= hi; ++a) {
        longer |= out_dims[a] > 1;
        if (a + rank >= out_rank && dims[a + rank - out_rank] != 1) return false;
    }
    return longer;
}

uint16_t cost_spaces(const CostSource &src, CostSpace *spaces, uint16_t capacity)
{
    if (capacity == 0) return 0;
    uint16_t n = 1;
    clear_space(&spaces[0], 0xFFFFu);
    for (uint16_t j = 0; j < src.num_ops; ++j) {
        CostOp op;
        src.op(src.ctx, j, &op);
        CostSpace *cur = &spaces[n - 1];
        for (uint8_t k = 0; k < op.num_inputs && cur->rows < 0; ++k) {
            CostTensor t;
            src.tensor(src.ctx, op.inputs[k], &t);
            if (banded(t)) set_extent(cur, t, src.hw != 0);
        }
        if (op.spatial) {
            if (n == capacity) return 0;
            cur = &spaces[n++];
            clear_space(cur, j);
        }
        if (cur->rows < 0 && op.num_outputs > 0) {
            CostTensor t;
            src.tensor(src.ctx, op.outputs[0], &t);
            set_extent(cur, t, src.hw != 0);
        }
    }
    for (uint16_t k = 0; k < n; ++k)
        if (spaces[k].rows < 1 || spaces[k].cols < 1) return 0;
    return n;
}

bool cost_band_ranges(const CostSource &src, CostSpace *spaces, uint16_t n, int32_t o0, int32_t o1, int32_t q0,
                      int32_t q1)
{
    if (n == 0) return false;
    CostSpace *last = &spaces[n - 1];
    if (!src.hw) q0 = 0, q1 = last->cols;
    if (o0 < 0 || o1 <= o0 || o1 > last->rows || q0 < 0 || q1 <= q0 || q1 > last->cols) return false;
    last->r0 = o0, last->r1 = o1, last->c0 = q0, last->c1 = q1;
    for (uint16_t k = (uint16_t)(n - 1); k > 0; --k) {
        CostSpace *out = &spaces[k], *in = &spaces[k - 1];
        CostOp op;
        src.op(src.ctx, out->producer, &op);
        BandRows r;
        band_input_rows(&op.row, in->rows, out->r0, out->r1, &r);
        in->r0 = r.in0, in->r1 = r.in1;
        out->pad_top = r.pad_before, out->pad_bottom = r.pad_after;
        if (src.hw) {
            band_input_rows(&op.col, in->cols, out->c0, out->c1, &r);
            in->c0 = r.in0, in->c1 = r.in1;
            out->pad_left = r.pad_before, out->pad_right = r.pad_after;
        } else {
            in->c0 = 0, in->c1 = in->cols;
            out->pad_left = out->pad_right = 0;
        }
        if (in->r1 <= in->r0 || in->c1 <= in->c0) return false;
    }
    spaces[0].pad_top = spaces[0].pad_bottom = spaces[0].pad_left = spaces[0].pad_right = 0;
    return true;
}

uint64_t cost_band_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, uint32_t align)
{
    return buffers_bytes(src, spaces, n, SET_BAND, align);
}

uint64_t cost_line_buffer_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, uint32_t align)
{
    return buffers_bytes(src, spaces, n, SET_LINES, align);
}

uint64_t cost_reload_bytes(const CostSource &src, const CostSpace *spaces, uint16_t n, uint32_t align)
{
    return buffers_bytes(src, spaces, n, SET_RELOADS, align);
}

uint64_t cost_whole_bytes(const CostSource &src, uint32_t align)
{
    uint64_t sum = 0;
    for (uint16_t j = 0; j < src.num_ops; ++j) {
        CostOp op;
        src.op(src.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) {
            CostTensor t;
            src.tensor(src.ctx, op.inputs[k], &t);
            if ((t.flags & COST_CONSTANT) || !(t.flags & COST_WHOLE) || read_before(src, 0, j, k, op.inputs[k]))
                continue;
            sum = add_sat(sum, cost_align(t.bytes, align));
        }
    }
    return sum;
}

namespace {

// Whether every space's row count equals the previous row band's (kept in prev_r0).
bool same_rows_as_before(CostSpace *spaces, uint16_t n, bool first)
{
    bool same = !first;
    for (uint16_t k = 0; k < n; ++k) {
        const int32_t len = spaces[k].r1 - spaces[k].r0;
        same = same && spaces[k].prev_r0 == len;
        spaces[k].prev_r0 = len;
    }
    return same;
}

// Whether every space's column count equals the previous column tile's of this row band
// (kept in prev_r1): the bytes of a band depend only on its row and column counts.
bool same_cols_as_before(CostSpace *spaces, uint16_t n, bool first)
{
    bool same = !first;
    for (uint16_t k = 0; k < n; ++k) {
        const int32_t len = spaces[k].c1 - spaces[k].c0;
        same = same && spaces[k].prev_r1 == len;
        spaces[k].prev_r1 = len;
    }
    return same;
}

void note_max(CostSpace *spaces, uint16_t n)
{
    for (uint16_t k = 0; k < n; ++k) {
        CostSpace &s = spaces[k];
        if (s.r1 - s.r0 > s.max_rows) s.max_rows = s.r1 - s.r0;
        if (s.c1 - s.c0 > s.max_cols) s.max_cols = s.c1 - s.c0;
    }
}

}  // namespace

bool cost_banded_peak(const CostSource &src, CostSpace *spaces, uint16_t n, uint32_t band_rows, uint32_t band_cols,
                      bool line_buffered, uint32_t align, CostPeak *out)
{
    *out = CostPeak{};
    if (n == 0) return false;
    const int32_t R = spaces[n - 1].rows, C = src.hw ? spaces[n - 1].cols : 1;
    const int32_t b = band_rows < 1 ? 1 : (band_rows > (uint32_t)R ? R : (int32_t)band_rows);
    const int32_t w = !src.hw || band_cols < 1 || band_cols > (uint32_t)C ? C : (int32_t)band_cols;
    for (uint16_t k = 0; k < n; ++k) spaces[k].max_rows = spaces[k].max_cols = 0;
    uint64_t best = 0;
    for (int32_t o0 = 0; o0 < R; o0 += b) {
        const int32_t o1 = o0 + b < R ? o0 + b : R;
        if (!cost_band_ranges(src, spaces, n, o0, o1, 0, w)) return false;
        if (same_rows_as_before(spaces, n, o0 == 0)) continue;  // same bytes as the band before
        for (int32_t q0 = 0; q0 < C; q0 += w) {
            const int32_t q1 = q0 + w < C ? q0 + w : C;
            if (!cost_band_ranges(src, spaces, n, o0, o1, q0, q1)) return false;
            if (same_cols_as_before(spaces, n, q0 == 0)) continue;  // same bytes as the tile before
            note_max(spaces, n);
            const uint64_t bytes =
                line_buffered ? cost_reload_bytes(src, spaces, n, align) : cost_band_bytes(src, spaces, n, align);
            if (bytes > best) best = bytes;
        }
    }
    out->whole = cost_whole_bytes(src, align);
    out->band = line_buffered ? add_sat(cost_line_buffer_bytes(src, spaces, n, align), best) : best;
    out->peak = add_sat(out->whole, out->band);
    const uint64_t tiles = (uint64_t)((R + b - 1) / b) * (uint64_t)((C + w - 1) / w);
    out->tiles = tiles > UINT32_MAX ? UINT32_MAX : (uint32_t)tiles;
    return true;
}

uint64_t cost_layout_peak(tigris_band_kind_t kind, uint32_t extent, uint32_t band, uint32_t in_bytes,
                          uint32_t out_bytes, uint32_t out_elements, uint32_t align)
{
    if (extent == 0) return UINT64_MAX;
    const uint64_t b = band < 1 ? 1u : (band > extent ? extent : band);
    const uint64_t in_band = cost_align(b * in_bytes / extent, align);
    switch (kind) {
    case TIGRIS_BAND_KIND_TRANSPOSE:
    case TIGRIS_BAND_KIND_RESHAPE:
    case TIGRIS_BAND_KIND_LEADING: return in_band + cost_align(b * out_bytes / extent, align);
    case TIGRIS_BAND_KIND_BY_INPUT:
        return cost_align(4ull * out_elements, align) + cost_align(out_bytes, align) + in_band;
    default: return UINT64_MAX;
    }
}

}  // namespace tigris_rt
