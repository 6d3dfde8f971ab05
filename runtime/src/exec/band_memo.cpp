// The band description memo (band_memo.h).
#include "exec/band_memo.h"

namespace tigris_rt {

namespace {

void memo_op(const void *ctx, uint16_t j, CostOp *out)
{
    const BandMemo &m = *static_cast<const BandMemo *>(ctx);
    if (j < m.num_ops) *out = m.ops[j];
    else m.base.op(m.base.ctx, j, out);
}

void memo_tensor(const void *ctx, uint16_t id, CostTensor *out)
{
    *out = band_memo_tensor(*static_cast<const BandMemo *>(ctx), id);
}

void remember(BandMemo &m, uint16_t id)
{
    for (uint16_t i = 0; i < m.num_tensors; ++i)
        if (m.ids[i] == id) return;
    if (m.num_tensors == kBandMemoTensors) return;
    m.base.tensor(m.base.ctx, id, &m.tensors[m.num_tensors]);
    m.ids[m.num_tensors++] = id;
}

}  // namespace

CostSource band_memo_fill(BandMemo &memo, const CostSource &base)
{
    memo.base = base;
    memo.num_ops = base.num_ops < kBandMemoOps ? base.num_ops : kBandMemoOps;
    memo.num_tensors = 0;
    for (uint16_t j = 0; j < base.num_ops && (j < memo.num_ops || memo.num_tensors < kBandMemoTensors); ++j) {
        CostOp later;
        CostOp &op = j < memo.num_ops ? memo.ops[j] : later;
        base.op(base.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) remember(memo, op.inputs[k]);
        for (uint8_t k = 0; k < op.num_outputs; ++k) remember(memo, op.outputs[k]);
    }
    CostSource src = base;
    src.ctx = &memo;
    src.op = memo_op;
    src.tensor = memo_tensor;
    return src;
}

CostTensor band_memo_tensor(const BandMemo &memo, uint16_t id)
{
    for (uint16_t i = 0; i < memo.num_tensors; ++i)
        if (memo.ids[i] == id) return memo.tensors[i];
    CostTensor t;
    memo.base.tensor(memo.base.ctx, id, &t);
    return t;
}

}  // namespace tigris_rt
