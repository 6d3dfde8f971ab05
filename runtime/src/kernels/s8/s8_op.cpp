// Operand access of the int8 kernels (see s8_op.h).
#include "kernels/s8/s8_op.h"

#include <string.h>

namespace tigris_s8 {
namespace {

int fill_operand(const kern::Call &c, uint16_t index, Operand *o)
{
    const tigris_plan_t *plan = c.plan;
    if (plan == nullptr || plan->header == nullptr || index >= plan->header->num_tensors) return kError;
    const tigris_tensor_t *t = &plan->tensors[index];
    if (t->ndim > kMaxRank) return kError;
    const int32_t *shape = tigris_tensor_shape(plan, t);
    uint64_t n = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (shape[d] <= 0) return kError;
        n *= (uint64_t)shape[d];
        if (n > 0x7FFFFFFFu) return kError;
    }
    uint8_t *data = (uint8_t *)tigris_mem_tensor_ptr(c.mem, index);
    if (data == nullptr) return kError;
    // Every field set (no reset first: a call per tile, and *o is left as it was on an error).
    o->index = index;
    o->dtype = t->dtype;
    o->rank = t->ndim;
    o->shape = shape;
    o->elements = (uint32_t)n;
    o->quant = tigris_tensor_quant(plan, t);
    o->quantized = o->quant != nullptr;
    quant_values(o->quant, &o->scale, &o->zero_point);
    o->data = data;
    return 0;
}

}  // namespace

int input_operand(const kern::Call &c, int i, Operand *out)
{
    if (c.op == nullptr || i < 0 || i >= c.op->num_inputs) return kError;
    return fill_operand(c, c.in_index((uint8_t)i), out);
}

int output_operand(const kern::Call &c, int i, Operand *out)
{
    if (c.op == nullptr || i < 0 || i >= c.op->num_outputs) return kError;
    return fill_operand(c, c.out_index((uint8_t)i), out);
}

void quant_values(const tigris_quant_param_t *q, float *scale, int32_t *zero_point)
{
    *scale = q != nullptr ? q->scale : 1.0f;
    *zero_point = q != nullptr ? q->zero_point : 0;
}

bool same_quant(float s1, int32_t z1, float s2, int32_t z2)
{
    const float d = s1 - s2;
    return (d <= 1e-6f && d >= -1e-6f) && z1 == z2;
}

bool output_requant(const tigris_plan_t *plan, const Operand &out, int32_t c, int32_t *multiplier, int *shift)
{
    const tigris_quant_param_t *qp = out.quant;
    if (qp == nullptr || plan->quant_data == nullptr || qp->num_channels == 0) return false;
    const int32_t ch = qp->num_channels > 1 ? c : 0;
    if (ch >= qp->num_channels) return false;
    *multiplier = tigris_quant_multipliers(plan, qp)[ch];
    *shift = (int)tigris_quant_shifts(plan, qp)[ch];
    return true;
}

namespace {

const uint8_t *entry_bytes(const tigris_plan_t *plan, uint16_t idx, uint32_t bytes)
{
    if (idx == TIGRIS_NONE || plan->weight_entries == nullptr || idx >= plan->header->num_weights) return nullptr;
    const tigris_weight_entry_t *w = &plan->weight_entries[idx];
    if (w->size_bytes < bytes) return nullptr;
    return (const uint8_t *)tigris_weight_data(plan, w);
}

}  // namespace

const uint8_t *op_weight_bytes(const kern::Call &c, uint32_t bytes)
{
    return entry_bytes(c.plan, c.op->weight_idx, bytes);
}

const uint8_t *op_bias_bytes(const kern::Call &c, uint32_t bytes) { return entry_bytes(c.plan, c.op->bias_idx, bytes); }

int pointwise_io(const kern::Call &c, PointwiseIO *io)
{
    if (input_operand(c, 0, &io->in) || output_operand(c, 0, &io->out)) return kError;
    if (io->in.elements != io->out.elements || io->in.rank != io->out.rank) return kError;
    const kern::Band band = kern::pointwise_band(c.mem);
    io->vo =
        kern::output_view(band, io->out.data, io->out.shape, io->out.rank, (uint8_t)tigris_dtype_size(io->out.dtype));
    io->vi = kern::input_view(band, io->in.data, io->in.shape, io->in.rank, (uint8_t)tigris_dtype_size(io->in.dtype),
                              io->out.shape, io->out.rank);
    return 0;
}

}  // namespace tigris_s8
