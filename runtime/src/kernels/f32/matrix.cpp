// FullyConnected (weight [OC, IC]) and MatMul (batched, numpy-broadcast batch dims),
// with row-tiled bands (kern::row_band).
#include "kernels/common/operands.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

// An input-channel band (chan_partial): rows [r0, r0 + rows) x input columns [k0, k0 + kc)
// packed in `in`, added to the whole output `o` in the whole op's order (each element's
// products summed from column 0 up, then the bias): the partial sum is stored in o between
// bands (a float store and load round nothing), so the result is the whole op's bit for bit.
int fully_connected_partial(const Call &c, const float *in, float *o, const float *w, const float *b, int64_t ic,
                            int32_t batch, int32_t oc)
{
    const tigris_tile_ctx_t &t = c.tile();
    const int32_t r0 = t.out_row_start, rows = t.out_h, k0 = t.chan0, kc = t.chans;
    if (c.out(0).ndim != 2 || t.chan_mix || r0 < 0 || rows < 1 || r0 + rows > batch || k0 < 0 || kc < 1 || k0 + kc > ic)
        return -1;
    for (int32_t r = 0; r < rows; ++r) {
        const float *x = in + (int64_t)r * kc;
        float *y = o + (int64_t)(r0 + r) * oc;
        for (int32_t j = 0; j < oc; ++j) {
            float acc = t.reduce_first ? 0.0f : y[j];
            const float *wr = w + (int64_t)j * ic + k0;
            for (int32_t k = 0; k < kc; ++k) acc += x[k] * wr[k];
            y[j] = t.reduce_last ? fused(acc + (b ? b[j] : 0.0f), c.op->fused_act) : acc;
        }
    }
    return 0;
}

}  // namespace

int fully_connected(const Call &c)
{
    const tigris_tensor_t &out = c.out(0);
    const int32_t *os = c.shape(out);
    int32_t batch = out.ndim == 2 ? os[0] : 1, oc = os[out.ndim - 1];
    uint32_t in_elems = c.in(0).size_bytes / 4u;
    if (batch <= 0 || in_elems % (uint32_t)batch != 0) return -1;
    int64_t ic = in_elems / (uint32_t)batch;
    kern::RowBand rb = kern::row_band(c.mem, batch);
    if (c.tiled() && !rb.active) return -1;
    const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
    float *o = reinterpret_cast<float *>(c.out_ptr(0));
    const float *w = static_cast<const float *>(c.weight());
    const float *b = static_cast<const float *>(c.bias());
    if (in == nullptr || o == nullptr || w == nullptr) return -1;
    if (c.tiled() && c.tile().chan_tiled && c.tile().chan_partial)
        return fully_connected_partial(c, in, o, w, b, ic, batch, oc);
    // An output-channel band (chan_mix): columns [j0, j0 + cols) of the layer's oc, packed.
    int32_t j0 = 0, cols = oc;
    if (c.tiled() && c.tile().chan_tiled) {
        const tigris_tile_ctx_t &t = c.tile();
        if (!t.chan_mix || out.ndim != 2 || t.chan0 < 0 || t.chans < 1 || t.chan0 + t.chans > oc) return -1;
        j0 = t.chan0, cols = t.chans;
    }
    in += (int64_t)rb.in_row_start * ic;
    o += (int64_t)rb.out_row_start * cols;
    for (int32_t r = 0; r < rb.rows; ++r)
        for (int32_t j = 0; j < cols; ++j) {
            // TensorFlow Lite's order: the products, then the bias (same float rounding).
            float acc = 0.0f;
            const float *x = in + r * ic, *wr = w + (int64_t)(j0 + j) * ic;
            for (int64_t k = 0; k < ic; ++k) acc += x[k] * wr[k];
            o[(int64_t)r * cols + j] = fused(acc + (b ? b[j0 + j] : 0.0f), c.op->fused_act);
        }
    return 0;
}

namespace {

// Element stride of each output batch axis into an operand's batch dims (0 = broadcast).
void batch_strides(const kern::View &v, int out_batch_rank, int64_t *stride)
{
    int rank = v.rank, off = out_batch_rank - (rank - 2);
    for (int i = 0; i < out_batch_rank; ++i) {
        int j = i - off;
        stride[i] = (j < 0 || v.shape[j] == 1) ? 0 : v.stride[j];
    }
}

}  // namespace

int matmul(const Call &c)
{
    kern::Band none{};
    none.row_axis = none.col_axis = -1;
    kern::OperandView ops[2];
    if (kern::resolve_operand_views(c, 2, none, ops) != 0) return -1;
    if (ops[0].dtype != TIGRIS_DTYPE_FLOAT32 || ops[1].dtype != TIGRIS_DTYPE_FLOAT32) return -1;
    const tigris_tensor_t &out = c.out(0);
    const int32_t *os = c.shape(out);
    int ro = out.ndim, br = ro - 2;
    const kern::View &A = ops[0].view, &B = ops[1].view;
    int32_t m_full = os[ro - 2], n = os[ro - 1], k = A.shape[A.rank - 1];
    kern::RowBand rb = kern::row_band(c.mem, m_full);
    if (c.tiled() && (!rb.active || ro != 2)) return -1;
    int64_t sa[kern::kMaxRank], sb[kern::kMaxRank];
    batch_strides(A, br, sa);
    batch_strides(B, br, sb);
    const float *a0 = reinterpret_cast<const float *>(A.data) + (int64_t)rb.in_row_start * k;
    const float *b0 = reinterpret_cast<const float *>(B.data);
    float *o = reinterpret_cast<float *>(c.out_ptr(0)) + (int64_t)rb.out_row_start * n;
    int64_t batches = 1;
    for (int i = 0; i < br; ++i) batches *= os[i];
    int32_t idx[kern::kMaxRank] = {};
    for (int64_t bt = 0; bt < batches; ++bt) {
        int64_t ao = 0, bo = 0;
        for (int i = 0; i < br; ++i) ao += idx[i] * sa[i], bo += idx[i] * sb[i];
        const float *a = a0 + ao, *b = b0 + bo;
        float *ob = o + bt * (int64_t)m_full * n;
        for (int32_t i = 0; i < rb.rows; ++i) {
            float *orow = ob + (int64_t)i * n;
            for (int32_t j = 0; j < n; ++j) orow[j] = 0.0f;
            for (int32_t kk = 0; kk < k; ++kk) {
                float av = a[(int64_t)i * k + kk];
                const float *brow = b + (int64_t)kk * n;
                for (int32_t j = 0; j < n; ++j) orow[j] += av * brow[j];
            }
        }
        for (int i = br - 1; i >= 0; --i) {
            if (++idx[i] < os[i]) break;
            idx[i] = 0;
        }
    }
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
