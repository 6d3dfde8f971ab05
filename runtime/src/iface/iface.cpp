// Model interface: bytes at the boundary and the conversions between the dtype the model
// declares and the dtype the plan stores.
//
// Conversions: identity for any dtype with a size; float32 declared <-> int8 stored through
// the tensor's quantization (finite positive scale), computed in float32 and rounded half
// away from zero on the way in, clamped to int8; uint8 declared <-> int8 stored by moving
// the zero point by 128 (exact). Everything else is refused with BAD_INTERFACE.
#include <math.h>
#include <string.h>

#include "common/features.h"
#include "iface/in_place.h"
#include "memory/arena.h"
#include "tigris_iface.h"

namespace tigris_rt {

namespace {

enum class Conversion { None, Identity, FloatToInt8, Uint8ToInt8 };

const tigris_tensor_t *boundary_tensor(const tigris_plan_t *plan, uint16_t idx, uint8_t flags)
{
    if (plan == nullptr || plan->header == nullptr || plan->tensors == nullptr) return nullptr;
    if (idx >= plan->header->num_tensors) return nullptr;
    const tigris_tensor_t *t = &plan->tensors[idx];
    return (t->flags & flags) != 0 ? t : nullptr;
}

Conversion conversion_of(const tigris_plan_t *plan, const tigris_tensor_t *t)
{
    const uint8_t declared = tigris_tensor_declared_dtype(t);
    if (tigris_dtype_size(t->dtype) == 0 || tigris_dtype_size(declared) == 0) return Conversion::None;
    if (declared == t->dtype) return Conversion::Identity;
    // A build without conversions loaded no plan declaring another dtype (step 16).
    if (!iface_conversion_built() || t->dtype != TIGRIS_DTYPE_INT8) return Conversion::None;
    if (declared == TIGRIS_DTYPE_UINT8) return Conversion::Uint8ToInt8;
    if (declared != TIGRIS_DTYPE_FLOAT32) return Conversion::None;
    const tigris_quant_param_t *q = tigris_tensor_quant(plan, t);
    if (q == nullptr || !isfinite(q->scale) || !(q->scale > 0.0f)) return Conversion::None;
    return Conversion::FloatToInt8;
}

uint32_t declared_bytes(const tigris_tensor_t *t)
{
    return t->size_bytes / tigris_dtype_size(t->dtype) * tigris_dtype_size(tigris_tensor_declared_dtype(t));
}

// The checks input_write and output_read share: direction, conversion, byte count.
tigris_error_t resolve(const tigris_plan_t *plan, uint16_t idx, uint8_t flag, uint32_t bytes,
                       const tigris_tensor_t **out_t, Conversion *out_c)
{
    const tigris_tensor_t *t = boundary_tensor(plan, idx, flag);
    if (t == nullptr) return TIGRIS_ERR_BAD_TENSOR;
    Conversion c = conversion_of(plan, t);
    if (c == Conversion::None) return TIGRIS_ERR_BAD_INTERFACE;
    if (bytes != declared_bytes(t)) return TIGRIS_ERR_BAD_SIZE;
    *out_t = t;
    *out_c = c;
    return TIGRIS_OK;
}

// Round half away from zero, as the compiler quantizes: floor(v + 0.5) or ceil(v - 0.5), in
// float (so v + 0.5 may round up first). Without libm's floorf/ceilf (288 bytes on a Cortex-M4):
// below 2^23 truncation is floor for the positive sum and ceil for the negative difference
// (only the sign of a zero result differs, which quantize's addition and cast drop); from 2^23
// on every float is an integer, and NaN passes through.
float round_half_away(float v)
{
    const float y = v >= 0.0f ? v + 0.5f : v - 0.5f;
    if (!(y < 8388608.0f && y > -8388608.0f)) return y;
    return (float)(int32_t)y;
}

int8_t quantize(float x, float scale, int32_t zero_point)
{
    float v = round_half_away(x / scale) + (float)zero_point;
    if (isnan(v)) v = (float)zero_point;  // NaN reads as 0
    if (v <= -128.0f) return -128;
    if (v >= 127.0f) return 127;
    return (int8_t)v;
}

void convert_in(Conversion c, const tigris_plan_t *plan, const tigris_tensor_t *t, const void *src, void *dst,
                uint32_t src_bytes)
{
    const uint32_t n = t->size_bytes;  // int8 elements for the two converting cases
    int8_t *out = (int8_t *)dst;
    if (!iface_conversion_built() || c == Conversion::Identity) {
        memcpy(dst, src, src_bytes);
    } else if (c == Conversion::Uint8ToInt8) {
        const uint8_t *in = (const uint8_t *)src;
        for (uint32_t i = 0; i < n; ++i) out[i] = (int8_t)((int32_t)in[i] - 128);
    } else {
        const tigris_quant_param_t *q = tigris_tensor_quant(plan, t);
        const float *in = (const float *)src;
        for (uint32_t i = 0; i < n; ++i) out[i] = quantize(in[i], q->scale, q->zero_point);
    }
}

void convert_out(Conversion c, const tigris_plan_t *plan, const tigris_tensor_t *t, const void *src, void *dst,
                 uint32_t dst_bytes)
{
    const uint32_t n = t->size_bytes;
    const int8_t *in = (const int8_t *)src;
    if (!iface_conversion_built() || c == Conversion::Identity) {
        memcpy(dst, src, dst_bytes);
    } else if (c == Conversion::Uint8ToInt8) {
        uint8_t *out = (uint8_t *)dst;
        for (uint32_t i = 0; i < n; ++i) out[i] = (uint8_t)((int32_t)in[i] + 128);
    } else {
        const tigris_quant_param_t *q = tigris_tensor_quant(plan, t);
        float *out = (float *)dst;
        for (uint32_t i = 0; i < n; ++i) out[i] = ((float)in[i] - (float)q->zero_point) * q->scale;
    }
}

}  // namespace

}  // namespace tigris_rt

using namespace tigris_rt;

extern "C" uint32_t tigris_iface_bytes(const tigris_plan_t *plan, uint16_t tensor_idx)
{
    const tigris_tensor_t *t =
        boundary_tensor(plan, tensor_idx, TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT);
    if (t == nullptr || conversion_of(plan, t) == Conversion::None) return 0;
    return declared_bytes(t);
}

extern "C" tigris_error_t tigris_input_write(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t tensor_idx,
                                             const void *src, uint32_t src_bytes)
{
    if (plan == nullptr || mem == nullptr || mem->tensor_ptrs == nullptr || src == nullptr) return TIGRIS_ERR_NULL;
    const tigris_tensor_t *t = nullptr;
    Conversion c = Conversion::None;
    tigris_error_t err = resolve(plan, tensor_idx, TIGRIS_TENSOR_MODEL_INPUT, src_bytes, &t, &c);
    if (err != TIGRIS_OK) return err;
    err = tigris_input_alloc(plan, mem, tensor_idx);
    if (err != TIGRIS_OK) return err;
    convert_in(c, plan, t, src, mem->tensor_ptrs[tensor_idx], src_bytes);
    return TIGRIS_OK;
}

extern "C" tigris_error_t tigris_output_read(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx,
                                             void *dst, uint32_t dst_bytes)
{
    if (plan == nullptr || mem == nullptr || mem->tensor_ptrs == nullptr || dst == nullptr) return TIGRIS_ERR_NULL;
    const tigris_tensor_t *t = nullptr;
    Conversion c = Conversion::None;
    tigris_error_t err = resolve(plan, tensor_idx, TIGRIS_TENSOR_MODEL_OUTPUT, dst_bytes, &t, &c);
    if (err != TIGRIS_OK) return err;
    const void *src = tigris_mem_tensor_ptr(mem, tensor_idx);
    if (src == nullptr) return TIGRIS_ERR_NULL;
    convert_out(c, plan, t, src, dst, dst_bytes);
    return TIGRIS_OK;
}
