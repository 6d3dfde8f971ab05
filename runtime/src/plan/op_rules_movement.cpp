// Rules of the movement operators (docs/operators.md §3.6): Concat, Split, Pad, MirrorPad,
// Transpose, Reshape family, Gather, EmbeddingLookup, GatherND, StridedSlice, ReverseV2,
// DynamicUpdateSlice.
#include <math.h>

#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

bool no_weights(const OpView &v) { return !v.has_weight() && !v.has_bias(); }

// Concat (inputs joined into output 0) or Split (input 0 cut into the outputs).
bool check_concat_split(const OpView &v, bool split)
{
    if (!no_weights(v) || !all_same_dtype(v)) return false;
    if (split ? v.num_in() != 1 : v.num_out() != 1) return false;
    const tigris_tensor_t &whole = split ? v.in(0) : v.out(0);
    uint8_t rank = whole.ndim;
    if (rank == 0) return false;
    int axis = read_single_axis(v, rank, rank - 1);
    if (axis < 0) return false;
    const int32_t *ws = v.shape(whole);
    uint8_t parts = split ? v.num_out() : v.num_in();
    int64_t sum = 0;
    for (uint8_t k = 0; k < parts; ++k) {
        const tigris_tensor_t &p = split ? v.out(k) : v.in(k);
        if (p.ndim != rank) return false;
        const int32_t *ps = v.shape(p);
        for (uint8_t a = 0; a < rank; ++a)
            if (a != axis && ps[a] != ws[a]) return false;
        sum += ps[axis];
    }
    return sum == ws[axis];
}

bool plain_io(const OpView &v)
{
    return v.num_in() == 1 && v.num_out() == 1 && no_weights(v) && v.in(0).dtype == v.out(0).dtype;
}

bool check_pad(const OpView &v)
{
    if (!plain_io(v)) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    uint8_t rank = in.ndim, len = 0;
    if (out.ndim != rank) return false;
    const uint8_t *p = v.attr(TIGRIS_ATTR_PADS, &len);
    if (p == nullptr || len != 8u * rank) return false;
    const int32_t *is = v.shape(in), *os = v.shape(out);
    for (uint8_t a = 0; a < rank; ++a) {
        int64_t o = (int64_t)is[a] + rd_i32(p + 4 * a) + rd_i32(p + 4 * (rank + a));
        if (o != os[a]) return false;
    }
    const uint8_t *f = v.attr(TIGRIS_ATTR_ALPHA, &len);
    return f == nullptr || (len == 4 && !isnan(rd_f32(f)));
}

bool check_mirror_pad(const OpView &v)
{
    if (!plain_io(v)) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    uint8_t rank = in.ndim;
    if (out.ndim != rank || movement_count(v) != 1 + 2 * rank) return false;
    int32_t mode = movement_at(v, 0);
    if (mode < 0 || mode > 3) return false;
    const int32_t *is = v.shape(in), *os = v.shape(out);
    for (uint8_t a = 0; a < rank; ++a) {
        int32_t b = movement_at(v, 1 + 2 * a), e = movement_at(v, 2 + 2 * a);
        int32_t limit = mode == 0 ? is[a] - 1 : mode == 2 ? 0x7FFFFFFF : is[a];
        if (b < 0 || e < 0 || b > limit || e > limit) return false;
        if ((int64_t)is[a] + b + e != os[a]) return false;
    }
    return true;
}

bool check_transpose(const OpView &v)
{
    if (!plain_io(v)) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    uint8_t rank = in.ndim, len = 0;
    const uint8_t *perm = v.attr(TIGRIS_ATTR_TRANSPOSE_PERM, &len);
    if (perm == nullptr || len != rank || out.ndim != rank) return false;
    bool seen[kMaxRank] = {};
    const int32_t *is = v.shape(in), *os = v.shape(out);
    for (uint8_t i = 0; i < rank; ++i) {
        if (perm[i] >= rank || seen[perm[i]]) return false;
        seen[perm[i]] = true;
        if (os[i] != is[perm[i]]) return false;
    }
    return true;
}

bool check_reshape(const OpView &v) { return plain_io(v) && v.in(0).size_bytes == v.out(0).size_bytes; }

// Constant: no input, one output, the weight exactly its bytes (a quantized output's weight
// holds the quantized values).
bool check_constant(const OpView &v)
{
    if (v.num_in() != 0 || v.num_out() != 1 || !v.has_weight() || v.has_bias()) return false;
    return v.out(0).size_bytes > 0 && v.weight_bytes() == v.out(0).size_bytes;
}

// Index operand of Gather/GatherND/DUS: tensor input `i` of an index dtype with the given
// shape, or (when `from_weight`) the weight holding int32 elements of that shape.
bool index_operand_ok(const OpView &v, bool from_weight, uint8_t i, const int32_t *shape, int rank)
{
    uint64_t count = 1;
    for (int k = 0; k < rank; ++k) {
        if (shape[k] <= 0) return false;
        count *= (uint64_t)shape[k];
    }
    if (from_weight) return v.weight_bytes() == count * 4u;
    const tigris_tensor_t &t = v.in(i);
    if (!is_index_dtype(t.dtype) || t.ndim != rank) return false;
    const int32_t *ts = v.shape(t);
    for (int k = 0; k < rank; ++k)
        if (ts[k] != shape[k]) return false;
    return true;
}

// MOVEMENT values [first, first + n) copied into `dst` (n <= kMaxRank).
bool movement_list(const OpView &v, int first, int n, int32_t *dst)
{
    if (n < 0 || n > kMaxRank) return false;
    for (int i = 0; i < n; ++i) dst[i] = movement_at(v, first + i);
    return true;
}

bool dims_equal(const int32_t *a, const int32_t *b, int n)
{
    for (int i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

bool check_gather(const OpView &v)
{
    if (v.num_out() != 1 || v.has_bias()) return false;
    const tigris_tensor_t &data = v.in(0), &out = v.out(0);
    bool from_weight = v.num_in() == 1;
    if (from_weight != v.has_weight() || v.num_in() > 2 || data.dtype != out.dtype) return false;
    int m = movement_count(v);
    if (m < 3) return false;
    int32_t axis = movement_at(v, 0), batch = movement_at(v, 1), irank = movement_at(v, 2);
    int32_t idx[kMaxRank];
    if (m != 3 + irank || !movement_list(v, 3, irank, idx)) return false;
    if (batch < 0 || batch > axis || axis >= data.ndim || batch > irank) return false;
    if (!index_operand_ok(v, from_weight, 1, idx, irank)) return false;
    const int32_t *ds = v.shape(data), *os = v.shape(out);
    if (!dims_equal(ds, idx, batch)) return false;
    int out_rank = axis + (irank - batch) + (data.ndim - axis - 1);
    if (out.ndim != out_rank) return false;
    int j = 0;
    for (int a = 0; a < axis; ++a)
        if (os[j++] != ds[a]) return false;
    for (int a = batch; a < irank; ++a)
        if (os[j++] != idx[a]) return false;
    for (int a = axis + 1; a < data.ndim; ++a)
        if (os[j++] != ds[a]) return false;
    return true;
}

bool check_embedding(const OpView &v)
{
    if (v.num_in() != 1 || v.num_out() != 1 || !v.has_weight() || v.has_bias()) return false;
    const tigris_tensor_t &out = v.out(0);
    int m = movement_count(v);
    if (m < 3 || movement_at(v, 0) != 0 || movement_at(v, 1) != 0) return false;
    int32_t irank = movement_at(v, 2), idx[kMaxRank];
    if (m != 3 + irank || !movement_list(v, 3, irank, idx)) return false;
    if (!index_operand_ok(v, false, 0, idx, irank) || out.ndim <= irank) return false;
    const int32_t *os = v.shape(out);
    if (!dims_equal(os, idx, irank)) return false;
    uint64_t row = tigris_dtype_size(out.dtype);
    for (int a = irank; a < out.ndim; ++a) row *= (uint64_t)os[a];
    return row != 0 && v.weight_bytes() >= row && v.weight_bytes() % row == 0;
}

bool check_gather_nd(const OpView &v)
{
    if (v.num_out() != 1 || v.has_bias()) return false;
    const tigris_tensor_t &data = v.in(0), &out = v.out(0);
    bool from_weight = v.num_in() == 1;
    if (from_weight != v.has_weight() || v.num_in() > 2 || data.dtype != out.dtype) return false;
    int m = movement_count(v);
    if (m < 1) return false;
    int32_t irank = movement_at(v, 0), idx[kMaxRank];
    if (irank < 1 || (m != 1 + irank && m != 2 + irank) || !movement_list(v, 1, irank, idx)) return false;
    int32_t batch = m == 2 + irank ? movement_at(v, 1 + irank) : 0;
    int32_t q = idx[irank - 1];
    if (batch < 0 || batch >= irank || q < 1 || q > data.ndim - batch) return false;
    if (!index_operand_ok(v, from_weight, 1, idx, irank)) return false;
    const int32_t *ds = v.shape(data), *os = v.shape(out);
    if (!dims_equal(ds, idx, batch)) return false;
    if (out.ndim != (irank - 1) + (data.ndim - batch - q)) return false;
    if (!dims_equal(os, idx, irank - 1)) return false;
    return dims_equal(os + irank - 1, ds + batch + q, data.ndim - batch - q);
}

bool check_strided_slice(const OpView &v)
{
    if (!plain_io(v)) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    int rank = in.ndim, m = movement_count(v);
    if (m != 3 * rank && m != 3 * rank + 1) return false;
    int32_t shrink = m == 3 * rank + 1 ? movement_at(v, 3 * rank) : 0;
    if (shrink < 0 || (rank < 31 && (shrink >> rank) != 0)) return false;
    const int32_t *is = v.shape(in), *os = v.shape(out);
    int j = 0;
    for (int a = 0; a < rank; ++a) {
        int64_t start = movement_at(v, 3 * a), end = movement_at(v, 3 * a + 1), step = movement_at(v, 3 * a + 2);
        if (step == 0) return false;
        int64_t span = step > 0 ? end - start : start - end;
        int64_t st = step > 0 ? step : -step;
        int64_t count = span <= 0 ? 0 : (span + st - 1) / st;
        if (count > 0) {
            int64_t last = start + (count - 1) * step;
            if (start < 0 || start >= is[a] || last < 0 || last >= is[a]) return false;
        }
        if ((shrink >> a) & 1) {
            if (count != 1) return false;
            continue;
        }
        if (j >= out.ndim || os[j++] != count) return false;
    }
    return j == out.ndim;
}

bool check_reverse(const OpView &v)
{
    if (!plain_io(v) || !same_shape(v, v.in(0), v.out(0)) || movement_count(v) != 1) return false;
    int32_t mask = movement_at(v, 0);
    return mask >= 0 && (v.in(0).ndim >= 31 || (mask >> v.in(0).ndim) == 0);
}

bool check_dynamic_update_slice(const OpView &v)
{
    if (v.num_out() != 1 || v.has_bias()) return false;
    const tigris_tensor_t &opnd = v.in(0), &out = v.out(0);
    if (!same_shape(v, opnd, out) || opnd.dtype != out.dtype) return false;
    int rank = opnd.ndim;
    bool update_weight = v.has_weight();
    uint8_t tensor_inputs = update_weight ? 1 : 2;
    if (v.num_in() != tensor_inputs && v.num_in() != tensor_inputs + 1) return false;
    if (movement_count(v) != 2 * rank) return false;
    const int32_t *os = v.shape(opnd);
    int32_t ushape[kMaxRank];
    if (!movement_list(v, rank, rank, ushape)) return false;
    uint64_t count = 1;
    for (int a = 0; a < rank; ++a) {
        if (ushape[a] < 0 || ushape[a] > os[a]) return false;
        count *= (uint64_t)ushape[a];
    }
    if (update_weight) {
        if (v.weight_bytes() != count * tigris_dtype_size(opnd.dtype)) return false;
    } else {
        const tigris_tensor_t &u = v.in(1);
        if (u.dtype != opnd.dtype || u.ndim != rank || !dims_equal(v.shape(u), ushape, rank)) return false;
    }
    if (v.num_in() == tensor_inputs) return true;
    const tigris_tensor_t &starts = v.in(tensor_inputs);
    return is_index_dtype(starts.dtype) && elements(v, starts) == (uint64_t)rank;
}

}  // namespace

Verdict check_movement(const OpView &v)
{
    switch (rule_of(v)) {
        TIGRIS_RULE(kConcatSplit, check_concat_split(v, v.op->op_type == TIGRIS_OP_SPLIT))
        TIGRIS_RULE(kPad, check_pad(v))
        TIGRIS_RULE(kMirrorPad, check_mirror_pad(v))
        TIGRIS_RULE(kTranspose, check_transpose(v))
        TIGRIS_RULE(kReshape, check_reshape(v))
        TIGRIS_RULE(kConstant, check_constant(v))
        TIGRIS_RULE(kGather, check_gather(v))
        TIGRIS_RULE(kEmbedding, check_embedding(v))
        TIGRIS_RULE(kGatherNd, check_gather_nd(v))
        TIGRIS_RULE(kStridedSlice, check_strided_slice(v))
        TIGRIS_RULE(kReverse, check_reverse(v))
        TIGRIS_RULE(kDynamicUpdateSlice, check_dynamic_update_slice(v))
    default: return kNotMine;
    }
}

}  // namespace rules
}  // namespace tigris_rt
