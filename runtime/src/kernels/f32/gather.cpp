// Gather (axis, batch_dims), GatherND (batch_dims) and EmbeddingLookup, any data dtype;
// indices int32/int64 tensors or int32 constants; negative indices count from the end,
// out-of-range indices fail the call. A Gather of a list of positions (batch_dims 0) also runs
// banded along any other axis: each output band reads the same band of the input.
#include <string.h>

#include "kernels/common/lanes.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

struct Indices {
    const uint8_t *data;
    bool wide;  // int64
    int64_t at(int64_t k) const
    {
        if (wide) {
            int64_t v;
            memcpy(&v, data + 8 * k, 8);
            return v;
        }
        int32_t v;
        memcpy(&v, data + 4 * k, 4);
        return v;
    }
};

// MOVEMENT attribute as i32 values.
struct Movement {
    const uint8_t *p;
    int count;
    int32_t at(int i) const
    {
        int32_t v;
        memcpy(&v, p + 4 * i, 4);
        return v;
    }
};

bool movement(const Call &c, Movement *m)
{
    uint8_t len = 0;
    m->p = c.attr(TIGRIS_ATTR_MOVEMENT, &len);
    m->count = len / 4;
    return m->p != nullptr;
}

// Indices from input `i` when present, else from the weight (int32).
bool indices(const Call &c, uint8_t i, Indices *ix)
{
    if (c.op->num_inputs > i) {
        ix->data = c.in_ptr(i);
        ix->wide = c.in(i).dtype == TIGRIS_DTYPE_INT64;
    } else {
        ix->data = static_cast<const uint8_t *>(c.weight());
        ix->wide = false;
    }
    return ix->data != nullptr;
}

bool normalize(int64_t *k, int64_t dim)
{
    if (*k < 0) *k += dim;
    return *k >= 0 && *k < dim;
}

int64_t product(const int32_t *s, int from, int to)
{
    int64_t p = 1;
    for (int i = from; i < to; ++i) p *= s[i];
    return p;
}

int gather_axis(const Call &c, const Movement &m)
{
    const tigris_tensor_t &data = c.in(0);
    const int32_t *ds = c.shape(data);
    int axis = m.at(0), batch = m.at(1), irank = m.at(2);
    Indices ix;
    if (!indices(c, 1, &ix)) return -1;
    int64_t idx_shape_batch = 1, per_batch = 1;
    for (int i = 0; i < irank; ++i) (i < batch ? idx_shape_batch : per_batch) *= m.at(3 + i);
    int64_t outer = product(ds, 0, batch), mid = product(ds, batch, axis), dim = ds[axis];
    uint64_t inner = (uint64_t)product(ds, axis + 1, data.ndim) * tigris_dtype_size(data.dtype);
    const uint8_t *src = c.in_ptr(0);
    uint8_t *dst = c.out_ptr(0);
    if (idx_shape_batch != outer) return -1;
    for (int64_t b = 0; b < outer; ++b)
        for (int64_t q = 0; q < mid; ++q)
            for (int64_t j = 0; j < per_batch; ++j) {
                int64_t k = ix.at(b * per_batch + j);
                if (!normalize(&k, dim)) return -1;
                memcpy(dst + (uint64_t)((b * mid + q) * per_batch + j) * inner,
                       src + (uint64_t)((b * mid + q) * dim + k) * inner, inner);
            }
    return 0;
}

// Gather of a 1-D index list under a band that leaves its axis whole: position k of the axis
// copied from position indices[k] of the input band.
int gather_banded(const Call &c, const Movement &m)
{
    const tigris_tensor_t &data = c.in(0), &out = c.out(0);
    const int axis = m.at(0);
    const kern::Band band = kern::pointwise_band(c.mem);
    if (m.at(1) != 0 || m.at(2) != 1 || axis < 0 || axis >= data.ndim || out.ndim != data.ndim ||
        kern::band_cuts_axis(band, axis))
        return -1;
    Indices ix;
    if (!indices(c, 1, &ix)) return -1;
    const uint8_t e = (uint8_t)tigris_dtype_size(data.dtype);
    const int32_t *ds = c.shape(data), *os = c.shape(out);
    kern::View iv = kern::input_view(band, c.in_ptr(0), ds, data.ndim, e, ds, data.ndim);
    kern::View ov = kern::output_view(band, c.out_ptr(0), os, out.ndim, e);
    const int64_t dim = ds[axis];
    for (int32_t k = 0; k < os[axis]; ++k) {
        int64_t j = ix.at(k);
        if (!normalize(&j, dim)) return -1;
        kern::View src = iv, dst = ov;
        src.data += j * iv.stride[axis] * e;
        src.shape[axis] = 1;
        dst.data += (int64_t)k * ov.stride[axis] * e;
        dst.shape[axis] = 1;
        if (kern::copy_view(dst, src) != 0) return -1;
    }
    return 0;
}

int gather_nd(const Call &c, const Movement &m)
{
    const tigris_tensor_t &data = c.in(0);
    const int32_t *ds = c.shape(data);
    int irank = m.at(0), batch = m.count == irank + 2 ? m.at(1 + irank) : 0;
    int q = m.at(irank);  // last index dim
    Indices ix;
    if (!indices(c, 1, &ix)) return -1;
    int64_t outer = product(ds, 0, batch), tuples = 1;
    for (int i = batch; i < irank - 1; ++i) tuples *= m.at(1 + i);
    uint32_t es = tigris_dtype_size(data.dtype);
    uint64_t slice = (uint64_t)product(ds, batch + q, data.ndim) * es;
    int64_t batch_elems = product(ds, batch, data.ndim);
    const uint8_t *src = c.in_ptr(0);
    uint8_t *dst = c.out_ptr(0);
    for (int64_t b = 0; b < outer; ++b)
        for (int64_t t = 0; t < tuples; ++t) {
            int64_t off = 0;
            for (int j = 0; j < q; ++j) {
                int64_t k = ix.at((b * tuples + t) * q + j);
                if (!normalize(&k, ds[batch + j])) return -1;
                off = off * ds[batch + j] + k;
            }
            memcpy(dst + (uint64_t)(b * tuples + t) * slice,
                   src + (uint64_t)b * batch_elems * es + (uint64_t)off * slice, slice);
        }
    return 0;
}

int embedding(const Call &c, const Movement &m)
{
    Indices ix{c.in_ptr(0), c.in(0).dtype == TIGRIS_DTYPE_INT64};
    const uint8_t *table = static_cast<const uint8_t *>(c.weight());
    int64_t ids = 1;
    for (int i = 0; i < m.at(2); ++i) ids *= m.at(3 + i);
    uint32_t out_bytes = c.out(0).size_bytes;
    if (ix.data == nullptr || table == nullptr || ids <= 0) return -1;
    uint64_t row = out_bytes / (uint64_t)ids;
    int64_t rows = row ? (int64_t)(c.weight_bytes() / row) : 0;
    uint8_t *dst = c.out_ptr(0);
    for (int64_t i = 0; i < ids; ++i) {
        int64_t k = ix.at(i);
        if (k < 0 || k >= rows) return -1;
        memcpy(dst + (uint64_t)i * row, table + (uint64_t)k * row, row);
    }
    return 0;
}

}  // namespace

int gather(const Call &c)
{
    Movement m;
    if (!movement(c, &m) || c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    if (c.tiled()) return c.op->op_type == TIGRIS_OP_GATHER && m.count >= 4 ? gather_banded(c, m) : -1;
    switch (c.op->op_type) {
    case TIGRIS_OP_GATHER: return gather_axis(c, m);
    case TIGRIS_OP_GATHER_ND: return gather_nd(c, m);
    default: return embedding(c, m);
    }
}

}  // namespace f32
}  // namespace tigris_rt
