// Moving tensor data between the pools: whole tensors, row bands and 2-D rectangles.
#include <string.h>

#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

namespace {

// Channels-last geometry of a rank-3 (N, L, C) or rank-4 (N, H, W, C) tensor.
struct Geometry {
    uint32_t n, h, w, c, elem;
    uint32_t row_bytes() const { return w * c * elem; }
};

bool geometry(const tigris_plan_t *plan, uint16_t idx, bool need_rank4, Geometry *g)
{
    if (plan == nullptr || plan->header == nullptr || idx >= plan->header->num_tensors) return false;
    const tigris_tensor_t *t = &plan->tensors[idx];
    if (t->ndim != 4 && (need_rank4 || t->ndim != 3)) return false;
    const int32_t *shape = tigris_tensor_shape(plan, t);
    for (uint8_t d = 0; d < t->ndim; ++d)
        if (shape[d] <= 0) return false;
    g->n = (uint32_t)shape[0];
    g->h = (uint32_t)shape[1];
    g->w = t->ndim == 4 ? (uint32_t)shape[2] : 1u;
    g->c = (uint32_t)shape[t->ndim - 1];
    g->elem = tigris_dtype_size(t->dtype);
    return g->elem != 0;
}

// A box's geometry: NHWC, or (box.matrix 1) the tensor as a [dim 0, the rest] matrix of one
// batch, one column per pixel row and the rest as channels, or (box.matrix 2) as the matrix
// [every dim but the last, the last]: one row per pixel (a 1x1 Conv's input-channel bands).
bool box_geometry(const tigris_plan_t *plan, uint16_t idx, const MemBox &box, Geometry *g)
{
    if (!box.matrix) return geometry(plan, idx, true, g);
    if (plan == nullptr || plan->header == nullptr || idx >= plan->header->num_tensors) return false;
    const tigris_tensor_t *t = &plan->tensors[idx];
    if (t->ndim < 2) return false;
    const int32_t *shape = tigris_tensor_shape(plan, t);
    const uint8_t split = box.matrix == 2 ? (uint8_t)(t->ndim - 1) : (uint8_t)1;
    uint64_t lead = 1, rest = 1;
    for (uint8_t d = 0; d < t->ndim; ++d) {
        if (shape[d] <= 0) return false;
        if (d < split) lead *= (uint64_t)shape[d];
        else rest *= (uint64_t)shape[d];
    }
    if (rest > UINT32_MAX || lead > INT32_MAX) return false;
    g->n = 1, g->h = (uint32_t)lead, g->w = 1, g->c = (uint32_t)rest;
    g->elem = tigris_dtype_size(t->dtype);
    return g->elem != 0;
}

bool rows_valid(const Geometry &g, int32_t h0, int32_t h1) { return h0 >= 0 && h1 > h0 && (uint32_t)h1 <= g.h; }

// Allocate a fast buffer for tensor idx without the ALLOC event (the LOAD reports it).
tigris_mem_error_t take_fast(tigris_mem_t *mem, uint16_t idx, uint32_t bytes, uint8_t **out)
{
    uint8_t *p = nullptr;
    tigris_mem_error_t err = mem_bump_fast(mem, bytes, &p);
    if (err != TIGRIS_MEM_OK) return err;
    mem->tensor_ptrs[idx] = p;
    *out = p;
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t check_tensor(const tigris_mem_t *mem, uint16_t idx)
{
    if (mem == nullptr || mem->tensor_ptrs == nullptr) return TIGRIS_MEM_ERR_NULL;
    if (idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    if (mem->tensor_ptrs[idx] == nullptr) return TIGRIS_MEM_ERR_NOT_SET;
    return TIGRIS_MEM_OK;
}

}  // namespace

void trace_band(tigris_mem_t *mem, uint8_t kind, uint16_t tensor, const void *dst, const void *src, uint32_t bytes,
                int32_t h0, int32_t h1, int32_t w0, int32_t w1)
{
    if (!trace_enabled(mem)) return;
    trace_mem(mem, kind, pool_of(mem, dst), tensor, pool_offset(mem, dst), pool_offset(mem, src), bytes, h0, h1, w0,
              w1);
}

tigris_mem_error_t mem_load(tigris_mem_t *mem, uint16_t idx, uint32_t bytes)
{
    tigris_mem_error_t err = check_tensor(mem, idx);
    if (err != TIGRIS_MEM_OK) return err;
    const uint8_t *src = (const uint8_t *)mem->tensor_ptrs[idx];
    uint8_t *dst = nullptr;
    err = take_fast(mem, idx, bytes, &dst);
    if (err != TIGRIS_MEM_OK) return err;
    memcpy(dst, src, bytes);
    if (mem->stats != nullptr) mem->stats->loads_bytes += bytes;
    trace_band(mem, TIGRIS_TRACE_LOAD, idx, dst, src, bytes, -1, -1, -1, -1);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_spill(tigris_mem_t *mem, uint16_t idx, uint32_t bytes)
{
    tigris_mem_error_t err = check_tensor(mem, idx);
    if (err != TIGRIS_MEM_OK) return err;
    const uint8_t *src = (const uint8_t *)mem->tensor_ptrs[idx];
    uint8_t *dst = nullptr;
    err = mem_bump_slow(mem, bytes, &dst);
    if (err != TIGRIS_MEM_OK) return err;
    memcpy(dst, src, bytes);
    mem->tensor_ptrs[idx] = dst;
    if (mem->stats != nullptr) mem->stats->spills_bytes += bytes;
    trace_band(mem, TIGRIS_TRACE_SPILL, idx, dst, src, bytes, -1, -1, -1, -1);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_load_rows(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, int32_t h0, int32_t h1)
{
    tigris_mem_error_t err = check_tensor(mem, idx);
    if (err != TIGRIS_MEM_OK) return err;
    Geometry g;
    if (!geometry(plan, idx, false, &g) || !rows_valid(g, h0, h1)) return TIGRIS_MEM_ERR_BAD_INDEX;
    const uint8_t *src = (const uint8_t *)mem->tensor_ptrs[idx];
    const uint32_t band = (uint32_t)(h1 - h0) * g.row_bytes();
    uint8_t *dst = nullptr;
    err = take_fast(mem, idx, g.n * band, &dst);
    if (err != TIGRIS_MEM_OK) return err;
    for (uint32_t b = 0; b < g.n; ++b) memcpy(dst + b * band, src + (b * g.h + (uint32_t)h0) * g.row_bytes(), band);
    if (mem->stats != nullptr) mem->stats->loads_bytes += g.n * band;
    trace_band(mem, TIGRIS_TRACE_LOAD, idx, dst, src, g.n * band, h0, h1, -1, -1);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_spill_rows(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, void *full, int32_t h0,
                                  int32_t h1)
{
    if (full == nullptr) return TIGRIS_MEM_ERR_NULL;
    tigris_mem_error_t err = check_tensor(mem, idx);
    if (err != TIGRIS_MEM_OK) return err;
    Geometry g;
    if (!geometry(plan, idx, false, &g) || !rows_valid(g, h0, h1)) return TIGRIS_MEM_ERR_BAD_INDEX;
    const uint8_t *src = (const uint8_t *)mem->tensor_ptrs[idx];
    uint8_t *dst = (uint8_t *)full;
    const uint32_t band = (uint32_t)(h1 - h0) * g.row_bytes();
    for (uint32_t b = 0; b < g.n; ++b) memcpy(dst + (b * g.h + (uint32_t)h0) * g.row_bytes(), src + b * band, band);
    mem->tensor_ptrs[idx] = full;
    if (mem->stats != nullptr) mem->stats->spills_bytes += g.n * band;
    trace_band(mem, TIGRIS_TRACE_SPILL, idx, dst, src, g.n * band, h0, h1, -1, -1);
    return TIGRIS_MEM_OK;
}

namespace {

bool box_valid(const Geometry &g, const MemBox &x)
{
    return rows_valid(g, x.h0, x.h1) && x.w0 >= 0 && x.w1 > x.w0 && (uint32_t)x.w1 <= g.w && x.c0 >= 0 &&
           x.c1 > x.c0 && (uint32_t)x.c1 <= g.c;
}

uint32_t box_bytes(const Geometry &g, const MemBox &x)
{
    return g.n * (uint32_t)(x.h1 - x.h0) * (uint32_t)(x.w1 - x.w0) * (uint32_t)(x.c1 - x.c0) * g.elem;
}

// `count` runs of `run` bytes, `from_stride` / `to_stride` apart. Runs of 1-4 bytes (the
// channel bands of tight budgets: a pixel's few channels) are copied by a loop of that width,
// where a memcpy call per pixel costs several times the bytes it moves. Single bytes (the
// one-channel bands) four a pass: one a pass took 7 instructions a byte on the Cortex-M4, four
// take 3.5 (for 2-4 bytes the longer loop cost more than it saved on kws's short rows).
template <uint32_t kRun>
void copy_small_runs(uint8_t *to, uint32_t to_stride, const uint8_t *from, uint32_t from_stride, uint32_t count)
{
    if (kRun == 1) {
        const uint32_t to2 = 2 * to_stride, to3 = 3 * to_stride, from2 = 2 * from_stride, from3 = 3 * from_stride;
        for (; count >= 4; count -= 4, to += 4 * to_stride, from += 4 * from_stride) {
            to[0] = from[0];
            to[to_stride] = from[from_stride];
            to[to2] = from[from2];
            to[to3] = from[from3];
        }
    }
    for (; count > 0; --count, to += to_stride, from += from_stride) memcpy(to, from, kRun);  // inlined
}

void copy_runs(uint8_t *to, uint32_t to_stride, const uint8_t *from, uint32_t from_stride, uint32_t run, uint32_t count)
{
    switch (run) {
    case 1: copy_small_runs<1>(to, to_stride, from, from_stride, count); return;
    case 2: copy_small_runs<2>(to, to_stride, from, from_stride, count); return;
    case 3: copy_small_runs<3>(to, to_stride, from, from_stride, count); return;
    case 4: copy_small_runs<4>(to, to_stride, from, from_stride, count); return;
    default:
        for (uint32_t q = 0; q < count; ++q, to += to_stride, from += from_stride) memcpy(to, from, run);
    }
}

// Copy a box between the full tensor and its packed form, in either direction: whole
// pixels run together, a channel range is copied pixel by pixel.
void copy_box(const Geometry &g, uint8_t *full, uint8_t *packed, const MemBox &x, bool to_packed)
{
    const uint32_t pix = g.c * g.elem, part = (uint32_t)(x.c1 - x.c0) * g.elem;
    const uint32_t rows = (uint32_t)(x.h1 - x.h0), cols = (uint32_t)(x.w1 - x.w0);
    const bool whole_pixels = part == pix;
    const uint32_t run = whole_pixels ? cols * pix : part, count = whole_pixels ? 1u : cols;
    for (uint32_t b = 0; b < g.n; ++b) {
        for (uint32_t r = 0; r < rows; ++r) {
            uint8_t *f = full + ((b * g.h + (uint32_t)x.h0 + r) * g.w + (uint32_t)x.w0) * pix + (uint32_t)x.c0 * g.elem;
            uint8_t *p = packed + (b * rows + r) * cols * part;
            if (to_packed) copy_runs(p, part, f, pix, run, count);
            else copy_runs(f, pix, p, part, run, count);
        }
    }
}

}  // namespace

tigris_mem_error_t mem_load_box(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, const MemBox &box)
{
    tigris_mem_error_t err = check_tensor(mem, idx);
    if (err != TIGRIS_MEM_OK) return err;
    Geometry g;
    if (!box_geometry(plan, idx, box, &g) || !box_valid(g, box)) return TIGRIS_MEM_ERR_BAD_INDEX;
    uint8_t *src = (uint8_t *)mem->tensor_ptrs[idx];
    const uint32_t bytes = box_bytes(g, box);
    uint8_t *dst = nullptr;
    err = take_fast(mem, idx, bytes, &dst);
    if (err != TIGRIS_MEM_OK) return err;
    copy_box(g, src, dst, box, true);
    if (mem->stats != nullptr) mem->stats->loads_bytes += bytes;
    trace_band(mem, TIGRIS_TRACE_LOAD, idx, dst, src, bytes, box.h0, box.h1, box.w0, box.w1);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_spill_box(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, void *full,
                                 const MemBox &box)
{
    if (full == nullptr) return TIGRIS_MEM_ERR_NULL;
    tigris_mem_error_t err = check_tensor(mem, idx);
    if (err != TIGRIS_MEM_OK) return err;
    Geometry g;
    if (!box_geometry(plan, idx, box, &g) || !box_valid(g, box)) return TIGRIS_MEM_ERR_BAD_INDEX;
    uint8_t *src = (uint8_t *)mem->tensor_ptrs[idx];
    const uint32_t bytes = box_bytes(g, box);
    copy_box(g, (uint8_t *)full, src, box, false);
    mem->tensor_ptrs[idx] = full;
    if (mem->stats != nullptr) mem->stats->spills_bytes += bytes;
    trace_band(mem, TIGRIS_TRACE_SPILL, idx, full, src, bytes, box.h0, box.h1, box.w0, box.w1);
    return TIGRIS_MEM_OK;
}

namespace {

// The box of every channel: a 2-D rectangle.
MemBox rect_box(const tigris_plan_t *plan, uint16_t idx, int32_t h0, int32_t h1, int32_t w0, int32_t w1)
{
    Geometry g;
    const int32_t c = geometry(plan, idx, true, &g) ? (int32_t)g.c : 1;
    return MemBox{h0, h1, w0, w1, 0, c, 0};
}

}  // namespace

tigris_mem_error_t mem_load_rect(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, int32_t h0, int32_t h1,
                                 int32_t w0, int32_t w1)
{
    return mem_load_box(mem, plan, idx, rect_box(plan, idx, h0, h1, w0, w1));
}

tigris_mem_error_t mem_spill_rect(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, void *full, int32_t h0,
                                  int32_t h1, int32_t w0, int32_t w1)
{
    return mem_spill_box(mem, plan, idx, full, rect_box(plan, idx, h0, h1, w0, w1));
}

}  // namespace tigris_rt
