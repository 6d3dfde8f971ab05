// Loader steps 14-19: build limits, tensor records and contracts, model I/O flags,
// operator records and the operator attribute table.
#include <math.h>

#include "common/features.h"
#include "plan/band_rules.h"
#include "plan/loader_ctx.h"

namespace tigris_rt {

// ---- step 14 ---------------------------------------------------------------

namespace {

// Spatial ops of a chained stage, counted only over a valid op list (step 23 refuses others).
uint32_t chained_spatial_ops(const LoadCtx &c, const tigris_stage_t &s)
{
    if (c.plan.index_pool == nullptr || !span_ok(s.ops_off, s.ops_count, c.index_count)) return 0;
    uint32_t n = 0;
    for (uint32_t j = 0; j < s.ops_count; j++) {
        const uint16_t op = pool_idx(&c.plan, s.ops_off + j);
        if (op < c.hdr.num_ops && chain_spatial_op(c.plan.ops[op].op_type)) n++;
    }
    return n;
}

}  // namespace

tigris_error_t check_plan_limits(LoadCtx &c)
{
    tigris_plan_limits_t &r = c.required;
    r.tensors = c.hdr.num_tensors;
    if (r.tensors > TIGRIS_MAX_TENSORS) return TIGRIS_ERR_PLAN_LIMITS;
    uint16_t in = 0, out = 0, chain = 0, spatial = 0;
    for (uint32_t i = 0; i < c.hdr.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        if (s.inputs_count > in) in = s.inputs_count;
        if (s.outputs_count > out) out = s.outputs_count;
        if (s.chain_len > chain) chain = s.chain_len;
        if (s.chain_len >= 2) {
            const uint32_t n = chained_spatial_ops(c, s);
            if (n > spatial) spatial = (uint16_t)n;
        }
    }
    r.stage_inputs = in;
    if (in > TIGRIS_MAX_STAGE_INPUTS) return TIGRIS_ERR_PLAN_LIMITS;
    r.stage_outputs = out;
    if (out > TIGRIS_MAX_STAGE_OUTPUTS) return TIGRIS_ERR_PLAN_LIMITS;
    r.chain_stages = chain;
    if (chain > TIGRIS_MAX_CHAIN_STAGES) return TIGRIS_ERR_PLAN_LIMITS;
    r.spatial_ops_per_stage = spatial;
    if (spatial > TIGRIS_MAX_SPATIAL_OPS_PER_STAGE) return TIGRIS_ERR_PLAN_LIMITS;
    if (c.plan.num_subgraphs > TIGRIS_MAX_SUBGRAPHS) return TIGRIS_ERR_PLAN_LIMITS;
    return TIGRIS_OK;
}

// ---- steps 15-17 -------------------------------------------------------------

tigris_error_t check_tensor_ranges(LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_tensors; i++) {
        const tigris_tensor_t &t = c.plan.tensors[i];
        if (!string_ok(c, t.name_str)) return TIGRIS_ERR_BAD_SECTION;
        if (t.ndim && (c.plan.shape_pool == nullptr || !span_ok(t.shape_off, t.ndim, c.shape_count)))
            return TIGRIS_ERR_BAD_SECTION;
        if (t.quant_param_idx != TIGRIS_NONE && t.quant_param_idx >= c.hdr.num_quant_params)
            return TIGRIS_ERR_BAD_SECTION;
    }
    return TIGRIS_OK;
}

namespace {

bool flags_ok(uint32_t version, uint8_t flags)
{
    if (flags & ~TIGRIS_TENSOR_FLAGS_KNOWN) return false;
    if ((flags & TIGRIS_TENSOR_LINEAR) && version < 7) return false;
    if ((flags & TIGRIS_TENSOR_STATE) && version < 10) return false;
    if (flags & TIGRIS_TENSOR_CALLER_ORDER) {
        const uint8_t boundary = TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT;
        if (version < 7 || !(flags & boundary) || (flags & TIGRIS_TENSOR_LINEAR)) return false;
    }
    return true;
}

bool iface_ok(uint32_t version, const tigris_tensor_t &t)
{
    if (t.iface_dtype == 0) return true;
    const uint8_t boundary = TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT;
    return version >= 6 && (t.flags & boundary) && t.iface_dtype != t.dtype && tigris_dtype_size(t.iface_dtype);
}

bool quant_ok(const tigris_plan_t &p, const tigris_tensor_t &t)
{
    if (t.quant_param_idx == TIGRIS_NONE) return true;
    if (t.dtype == TIGRIS_DTYPE_FLOAT32) return false;
    const tigris_quant_param_t &q = p.quant_params[t.quant_param_idx];
    const float scale = q.scale;
    const int32_t zp = q.zero_point;
    if (t.dtype == TIGRIS_DTYPE_INT8) return isfinite(scale) && scale > 0.0f && zp >= -128 && zp <= 127;
    if (t.dtype == TIGRIS_DTYPE_UINT8) return isfinite(scale) && scale > 0.0f && zp >= 0 && zp <= 255;
    if (t.dtype == TIGRIS_DTYPE_INT16) return isfinite(scale) && scale > 0.0f && zp >= -32768 && zp <= 32767;
    return true;
}

bool size_ok(const tigris_plan_t &p, const tigris_tensor_t &t)
{
    const uint32_t esize = tigris_dtype_size(t.dtype);
    if (esize == 0) return false;
    uint64_t n = esize;
    for (uint32_t d = 0; d < t.ndim; d++) {
        const int32_t dim = rd_i32(p.shape_pool + t.shape_off + d);
        if (dim <= 0) return false;
        n *= (uint64_t)dim;
        if (n > UINT32_MAX) return false;
    }
    return t.size_bytes == n;
}

bool listed(const uint16_t *list, uint32_t n, uint16_t t)
{
    for (uint32_t i = 0; i < n; i++) {
        if (rd_u16(list + i) == t) return true;
    }
    return false;
}

}  // namespace

tigris_error_t check_tensor_contracts(LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_tensors; i++) {
        const tigris_tensor_t &t = c.plan.tensors[i];
        // A build without interface conversions (TIGRIS_NO_IFACE_CONVERSION) refuses a declared dtype.
        if (!iface_conversion_built() && t.iface_dtype != 0) return TIGRIS_ERR_FEATURE_DISABLED;
        if (!flags_ok(c.hdr.version, t.flags) || !iface_ok(c.hdr.version, t) || !size_ok(c.plan, t) ||
            !quant_ok(c.plan, t))
            return TIGRIS_ERR_BAD_TENSOR;
    }
    // Step 17: boundary flags and the header's I/O lists agree both ways.
    for (uint32_t i = 0; i < c.hdr.num_tensors; i++) {
        const uint8_t f = c.plan.tensors[i].flags;
        const bool in = listed(c.plan.model_inputs, c.hdr.num_model_inputs, (uint16_t)i);
        const bool out = listed(c.plan.model_outputs, c.hdr.num_model_outputs, (uint16_t)i);
        if (((f & TIGRIS_TENSOR_MODEL_INPUT) != 0) != in || ((f & TIGRIS_TENSOR_MODEL_OUTPUT) != 0) != out)
            return TIGRIS_ERR_BAD_TENSOR;
    }
    return TIGRIS_OK;
}

// ---- step 18 -------------------------------------------------------------------

tigris_error_t check_op_records(LoadCtx &c)
{
    const tigris_file_header_t &h = c.hdr;
    for (uint32_t i = 0; i < h.num_ops; i++) {
        const tigris_op_t &op = c.plan.ops[i];
        if (!string_ok(c, op.name_str)) return TIGRIS_ERR_BAD_SECTION;
        if ((op.num_inputs || op.num_outputs) && c.plan.index_pool == nullptr) return TIGRIS_ERR_BAD_SECTION;
        if (!span_ok(op.inputs_off, op.num_inputs, c.index_count) ||
            !span_ok(op.outputs_off, op.num_outputs, c.index_count))
            return TIGRIS_ERR_BAD_SECTION;
        if (h.version < 5 && h.num_stages && op.stage >= h.num_stages) return TIGRIS_ERR_BAD_SECTION;
        if ((op.weight_idx != TIGRIS_NONE && op.weight_idx >= h.num_weights) ||
            (op.bias_idx != TIGRIS_NONE && op.bias_idx >= h.num_weights))
            return TIGRIS_ERR_BAD_SECTION;
        for (uint32_t j = 0; j < op.num_inputs; j++) {
            if (pool_idx(&c.plan, op.inputs_off + j) >= h.num_tensors) return TIGRIS_ERR_BAD_SECTION;
        }
        for (uint32_t j = 0; j < op.num_outputs; j++) {
            if (pool_idx(&c.plan, op.outputs_off + j) >= h.num_tensors) return TIGRIS_ERR_BAD_SECTION;
        }
        // A build that leaves the op out (its family or TIGRIS_ONLY_OPS) holds an empty row for
        // it: refused here (step 28 would too), so no later step reads that row. Earlier steps
        // read only its traits and band classes, none in the empty row, and pass it on to here.
        const ops::OpInfo *row = ops::op_info(op.op_type);
        if (!ops::kEveryRowBuilt && row != nullptr && !ops::row_built(*row)) return TIGRIS_ERR_KERNEL_DISABLED;
    }
    return TIGRIS_OK;
}

// ---- step 19 -------------------------------------------------------------------

namespace {

// TRANSPOSE_PERM: on a 1-in/1-out Transpose, one byte per axis, a permutation that maps
// the input shape onto the output shape.
bool transpose_perm_ok(const LoadCtx &c, const tigris_op_t &op, const uint8_t *perm, uint8_t len)
{
    // A build without Transpose refused every Transpose at step 18: no permutation is valid.
    if constexpr (!ops::op_built(TIGRIS_OP_TRANSPOSE)) return false;
    if (op.op_type != TIGRIS_OP_TRANSPOSE || op.num_inputs != 1 || op.num_outputs != 1) return false;
    const tigris_tensor_t &in = c.plan.tensors[pool_idx(&c.plan, op.inputs_off)];
    const tigris_tensor_t &out = c.plan.tensors[pool_idx(&c.plan, op.outputs_off)];
    if (len != in.ndim || out.ndim != in.ndim || in.size_bytes != out.size_bytes || len > 32) return false;
    uint32_t seen = 0;
    for (uint32_t a = 0; a < len; a++) {
        if (perm[a] >= len || (seen & (1u << perm[a]))) return false;
        seen |= 1u << perm[a];
        if (rd_i32(c.plan.shape_pool + out.shape_off + a) != rd_i32(c.plan.shape_pool + in.shape_off + perm[a]))
            return false;
    }
    return true;
}

// SUBGRAPHS: on If/While only, two graph indices naming graphs other than the main one.
bool subgraphs_attr_ok(const LoadCtx &c, const tigris_op_t &op, const uint8_t *data, uint8_t len)
{
    if (!control_flow_built() || !op_is_control_flow(op.op_type) || len != 4) return false;  // no graphs (step 11)
    for (uint32_t k = 0; k < 2; k++) {
        const uint16_t g = rd_u16(data + 2 * k);
        if (g == 0 || g >= c.plan.num_subgraphs) return false;
    }
    return true;
}

// CONSTANTS: u16 weight indices (TIGRIS_NONE for an absent optional operand).
bool constants_attr_ok(const LoadCtx &c, const uint8_t *data, uint8_t len)
{
    if (len == 0 || len % 2u) return false;
    for (uint32_t k = 0; k < len / 2u; k++) {
        const uint16_t w = rd_u16(data + 2 * k);
        if (w != TIGRIS_NONE && w >= c.hdr.num_weights) return false;
    }
    return true;
}

}  // namespace

tigris_error_t check_attributes(LoadCtx &c)
{
    const tigris_plan_t &p = c.plan;
    uint32_t cursor = 0;
    for (uint32_t i = 0; i < p.num_op_attributes; i++) {
        const tigris_op_attribute_t &a = p.op_attributes[i];
        if (a.op_index >= c.hdr.num_ops || a.type == 0 || a.type >= TIGRIS_ATTR_KIND_COUNT ||
            !span_ok(a.data_offset, a.data_len, c.attr_data_len))
            return TIGRIS_ERR_BAD_SECTION;
        if (i > 0) {
            const tigris_op_attribute_t &b = p.op_attributes[i - 1];
            if (a.op_index < b.op_index || (a.op_index == b.op_index && a.type <= b.type))
                return TIGRIS_ERR_BAD_SECTION;
        }
        const tigris_op_t &op = p.ops[a.op_index];
        const uint8_t *data = p.op_attribute_data + a.data_offset;
        if (a.type == TIGRIS_ATTR_TRANSPOSE_PERM && !transpose_perm_ok(c, op, data, a.data_len))
            return TIGRIS_ERR_BAD_SECTION;
        if (a.type == TIGRIS_ATTR_SUBGRAPHS && !subgraphs_attr_ok(c, op, data, a.data_len))
            return TIGRIS_ERR_BAD_SECTION;
        if (a.type == TIGRIS_ATTR_CONSTANTS && !constants_attr_ok(c, data, a.data_len)) return TIGRIS_ERR_BAD_SECTION;
    }
    // Every Transpose carries its permutation and every If/While its graphs.
    for (uint32_t op = 0; op < c.hdr.num_ops; op++) {
        bool perm = false, graphs = false;
        while (cursor < p.num_op_attributes && p.op_attributes[cursor].op_index == op) {
            perm |= p.op_attributes[cursor].type == TIGRIS_ATTR_TRANSPOSE_PERM;
            graphs |= p.op_attributes[cursor].type == TIGRIS_ATTR_SUBGRAPHS;
            cursor++;
        }
        const uint8_t type = p.ops[op].op_type;
        if ((type == TIGRIS_OP_TRANSPOSE && !perm) || (op_is_control_flow(type) && !graphs))
            return TIGRIS_ERR_BAD_SECTION;
    }
    return TIGRIS_OK;
}

}  // namespace tigris_rt
