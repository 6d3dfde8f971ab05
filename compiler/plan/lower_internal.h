// Helpers shared by the lowering files (lower*.cpp).
#pragma once

#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>

#include "compiler/ir/error.h"
#include "compiler/plan/lower.h"

namespace tigris::plan::detail {

using LowerFn = std::function<void(const ir::Graph&, const ir::Node&, WeightTable&, LoweredOp&)>;

// Registration tables, one per lowering file.
void register_spatial(std::map<std::string, LowerFn>& table);
void register_elementwise(std::map<std::string, LowerFn>& table);
void register_other(std::map<std::string, LowerFn>& table);
void register_svdf(std::map<std::string, LowerFn>& table);  // lower_svdf.cpp
void register_lstm(std::map<std::string, LowerFn>& table);  // lower_lstm.cpp
void register_signal(std::map<std::string, LowerFn>& table);  // lower_signal.cpp
void register_control(std::map<std::string, LowerFn>& table);  // lower_control.cpp: If, While

[[noreturn]] void unsupported(const ir::Node& n, const std::string& reason);
// An operand the plan needs as a constant (weight, bias, parameter) is computed at run time.
[[noreturn]] void runtime_operand(const ir::Graph& g, const ir::Node& n, ir::TensorId id);

struct Payload {
  std::vector<uint8_t> bytes;
  Payload& u8(uint64_t v) {
    bytes.push_back(static_cast<uint8_t>(v));
    return *this;
  }
  Payload& u16(uint64_t v) { return raw(static_cast<uint16_t>(v)); }
  Payload& i32(int64_t v) { return raw(static_cast<int32_t>(v)); }
  Payload& f32(float v) { return raw(v); }
  template <typename T>
  Payload& raw(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    bytes.insert(bytes.end(), b, b + sizeof(T));
    return *this;
  }
};

inline void add_attr(LoweredOp& op, uint8_t kind, const Payload& p) { op.attrs.emplace_back(kind, p.bytes); }

// Check dtype of tensor `id` is one of `allowed`.
void require_dtype(const ir::Graph& g, const ir::Node& n, ir::TensorId id, std::initializer_list<ir::DType> allowed);
inline constexpr std::initializer_list<ir::DType> kFloat = {ir::DType::Float32};
// Check the runtime has a float reference kernel of `op_type` for the dtype of tensor `id`
// (the kernel dtypes of the op's row of the operator table, runtime/src/ops/op_table.h).
void require_kernel(const ir::Graph& g, const ir::Node& n, ir::TensorId id, uint8_t op_type);

// Activation inputs in order (constants skipped).
std::vector<ir::TensorId> activation_inputs(const ir::Graph& g, const ir::Node& n);

// A non-negative axis in [0, rank).
int64_t axis_in(const ir::Node& n, int64_t axis, int64_t rank);

// AXES payload of sorted stored axes (n >= 1, each < 256).
Payload axes_payload(const ir::Node& n, std::vector<int64_t> axes, int64_t rank);

// u8/u16 range checks for the spatial block.
uint8_t fit_u8(const ir::Node& n, int64_t v, const char* what);
uint16_t fit_u16(const ir::Node& n, int64_t v, const char* what);

// kernel_shape/strides/dilations/pads (explicit after normalization) -> the spatial block
// (lower_spatial.cpp).
void fill_spatial(const ir::Node& n, int spatial_rank, tigris_spatial_t& s);
// Operands of an elementwise op: tensors become inputs, one constant the weight with a
// CONSTANT_OPERAND attribute (its quant param for int8 / int16) (lower_elementwise.cpp).
void elementwise_operands(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op);

// The fused activation attribute as TIGRIS_ACT_*.
uint8_t fused_activation(const ir::Node& n);

// ---- int8 (lower_int8.cpp) ----
// Tensor id is int8 with a per-tensor quant param: data of the int8 kernels.
bool is_q8(const ir::Graph& g, ir::TensorId id);
// Tensor id is int16 with a per-tensor quant param: data of the int16 kernels.
bool is_q16(const ir::Graph& g, ir::TensorId id);
// Every activation operand and output of the node is such a tensor.
void require_all_q8(const ir::Graph& g, const ir::Node& n);
// op.act_min/act_max from the node's "fused_activation" (Relu, Relu6, ReluN1To1) or
// "fused_clip" [lo, hi] and its output quant, as TFLite's CalculateActivationRangeQuantized.
void int8_clamp(const ir::Graph& g, const ir::Node& n, LoweredOp& op);
// int8 weights of a conv-like op (input i): symmetric, per tensor or per output channel
// (axis 0, `channels` scales), converted to the plan layout by `convert`.
uint16_t int8_weight(const ir::Graph& g, const ir::Node& n, size_t i, WeightTable& w, const std::string& tag,
                     std::vector<uint8_t> (*convert)(const ir::Tensor&), int64_t channels);
// int32 bias (input i, optional: TIGRIS_NONE when absent) of `channels` entries.
uint16_t int32_bias(const ir::Graph& g, const ir::Node& n, size_t i, WeightTable& w, int64_t channels);
// Per-channel requantization factors (tigris_s8::layer_multiplier) into op.out_*.
void conv_factors(const ir::Graph& g, const ir::Node& n, LoweredOp& op, bool fully_connected);

// ---- int16, 16x8 quantization (lower_int16.cpp) ----
// Lowers `n` when it is an int16 compute op (true); byte movement and everything else is
// left to the other tables (false).
bool lower_int16(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op);

}  // namespace tigris::plan::detail
