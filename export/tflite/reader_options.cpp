// Reading the BuiltinOptions tables TiGrIS carries into Options.
#include "export/tflite/reader_options.h"

#include "tflite_schema_generated.h"

namespace tigris::tflite::detail {
namespace {

namespace fb = tigris::tflite::fb;

Padding padding(int8_t v) { return static_cast<Padding>(v); }
Activation act(int8_t v) { return static_cast<Activation>(v); }
TensorType type(int8_t v) { return static_cast<TensorType>(v); }

Options read_conv(const fb::Conv2DOptions* o, const ReadContext& ctx) {
  ctx.check_slots(o, "Conv2DOptions", slots_below(7));
  return {OptionsType::Conv2D,
          Conv2DOptions{padding(o->padding()), o->stride_w(), o->stride_h(), act(o->fused_activation_function()),
                        o->dilation_w_factor(), o->dilation_h_factor(), type(o->quantized_bias_type())}};
}

Options read_depthwise(const fb::DepthwiseConv2DOptions* o, const ReadContext& ctx) {
  ctx.check_slots(o, "DepthwiseConv2DOptions", slots_below(7));
  return {OptionsType::DepthwiseConv2D,
          DepthwiseConv2DOptions{padding(o->padding()), o->stride_w(), o->stride_h(), o->depth_multiplier(),
                                 act(o->fused_activation_function()), o->dilation_w_factor(), o->dilation_h_factor()}};
}

Options read_pool(const fb::Pool2DOptions* o, const ReadContext& ctx) {
  ctx.check_slots(o, "Pool2DOptions", slots_below(6));
  return {OptionsType::Pool2D, Pool2DOptions{padding(o->padding()), o->stride_w(), o->stride_h(), o->filter_width(),
                                             o->filter_height(), act(o->fused_activation_function())}};
}

Options read_fc(const fb::FullyConnectedOptions* o, const ReadContext& ctx) {
  ctx.check_slots(o, "FullyConnectedOptions", slots_below(5));
  return {OptionsType::FullyConnected,
          FullyConnectedOptions{act(o->fused_activation_function()), o->weights_format(), o->keep_num_dims(),
                                o->asymmetric_quantize_inputs(), type(o->quantized_bias_type())}};
}

Options read_transpose_conv(const fb::TransposeConvOptions* o, const ReadContext& ctx) {
  ctx.check_slots(o, "TransposeConvOptions", slots_below(5));
  return {OptionsType::TransposeConv,
          TransposeConvOptions{padding(o->padding()), o->stride_w(), o->stride_h(), act(o->fused_activation_function()),
                               type(o->quantized_bias_type())}};
}

Options read_sequence_lstm(const fb::UnidirectionalSequenceLSTMOptions* o, const ReadContext& ctx) {
  ctx.check_slots(o, "UnidirectionalSequenceLSTMOptions", slots_below(6));
  return {OptionsType::UnidirectionalSequenceLstm,
          UnidirectionalSequenceLstmOptions{act(o->fused_activation_function()), o->cell_clip(), o->proj_clip(),
                                            o->time_major(), o->asymmetric_quantize_inputs(),
                                            o->diagonal_recurrent_tensors()}};
}

std::optional<std::vector<int32_t>> int_list(const flatbuffers::Vector<int32_t>* v) {
  if (!v) return std::nullopt;
  return to_vector(v);
}

}  // namespace

Options read_options(const void* op_table, uint8_t tag, const std::string& owner, const ReadContext& ctx) {
  auto* o = static_cast<const fb::Operator*>(op_table);
  if (tag == 0) return {};
  if (o->builtin_options() == nullptr) {
    ctx.uncarried(owner + " names options table type " + std::to_string(tag) +
                  " but has no table, which is not supported");
    return {};
  }
  auto t = static_cast<OptionsType>(tag);
  switch (t) {
  case OptionsType::Conv2D: return read_conv(o->builtin_options_as_Conv2DOptions(), ctx);
  case OptionsType::DepthwiseConv2D: return read_depthwise(o->builtin_options_as_DepthwiseConv2DOptions(), ctx);
  case OptionsType::Pool2D: return read_pool(o->builtin_options_as_Pool2DOptions(), ctx);
  case OptionsType::TransposeConv: return read_transpose_conv(o->builtin_options_as_TransposeConvOptions(), ctx);
  case OptionsType::FullyConnected: return read_fc(o->builtin_options_as_FullyConnectedOptions(), ctx);
  case OptionsType::UnidirectionalSequenceLstm:
    return read_sequence_lstm(o->builtin_options_as_UnidirectionalSequenceLSTMOptions(), ctx);
  case OptionsType::Softmax: {
    auto* s = o->builtin_options_as_SoftmaxOptions();
    ctx.check_slots(s, "SoftmaxOptions", slots_below(1));
    return {t, SoftmaxOptions{s->beta()}};
  }
  case OptionsType::Concatenation: {
    auto* s = o->builtin_options_as_ConcatenationOptions();
    ctx.check_slots(s, "ConcatenationOptions", slots_below(2));
    return {t, ConcatenationOptions{s->axis(), act(s->fused_activation_function())}};
  }
  case OptionsType::Add: {
    auto* s = o->builtin_options_as_AddOptions();
    ctx.check_slots(s, "AddOptions", slots_below(2));
    return {t, AddSubOptions{act(s->fused_activation_function()), s->pot_scale_int16()}};
  }
  case OptionsType::Sub: {
    auto* s = o->builtin_options_as_SubOptions();
    ctx.check_slots(s, "SubOptions", slots_below(2));
    return {t, AddSubOptions{act(s->fused_activation_function()), s->pot_scale_int16()}};
  }
  case OptionsType::Mul: {
    auto* s = o->builtin_options_as_MulOptions();
    ctx.check_slots(s, "MulOptions", slots_below(1));
    return {t, MulOptions{act(s->fused_activation_function())}};
  }
  case OptionsType::Div: {
    auto* s = o->builtin_options_as_DivOptions();
    ctx.check_slots(s, "DivOptions", slots_below(1));
    return {t, MulOptions{act(s->fused_activation_function())}};
  }
  case OptionsType::Reshape: {
    auto* s = o->builtin_options_as_ReshapeOptions();
    ctx.check_slots(s, "ReshapeOptions", slots_below(1));
    return {t, IntListOptions{int_list(s->new_shape())}};
  }
  case OptionsType::Squeeze: {
    auto* s = o->builtin_options_as_SqueezeOptions();
    ctx.check_slots(s, "SqueezeOptions", slots_below(1));
    return {t, IntListOptions{int_list(s->squeeze_dims())}};
  }
  case OptionsType::ResizeBilinear: {
    auto* s = o->builtin_options_as_ResizeBilinearOptions();
    ctx.check_slots(s, "ResizeBilinearOptions", 0b1100);  // slots 0, 1 are deprecated
    return {t, ResizeOptions{s->align_corners(), s->half_pixel_centers()}};
  }
  case OptionsType::ResizeNearestNeighbor: {
    auto* s = o->builtin_options_as_ResizeNearestNeighborOptions();
    ctx.check_slots(s, "ResizeNearestNeighborOptions", slots_below(2));
    return {t, ResizeOptions{s->align_corners(), s->half_pixel_centers()}};
  }
  case OptionsType::Reducer: {
    auto* s = o->builtin_options_as_ReducerOptions();
    ctx.check_slots(s, "ReducerOptions", slots_below(1));
    return {t, ReducerOptions{s->keep_dims()}};
  }
  case OptionsType::StridedSlice: {
    auto* s = o->builtin_options_as_StridedSliceOptions();
    ctx.check_slots(s, "StridedSliceOptions", slots_below(6));
    return {t, StridedSliceOptions{s->begin_mask(), s->end_mask(), s->ellipsis_mask(), s->new_axis_mask(),
                                   s->shrink_axis_mask(), s->offset()}};
  }
  case OptionsType::Svdf: {
    auto* s = o->builtin_options_as_SVDFOptions();
    ctx.check_slots(s, "SVDFOptions", slots_below(3));
    return {t, SVDFOptions{s->rank(), act(s->fused_activation_function()), s->asymmetric_quantize_inputs()}};
  }
  case OptionsType::LeakyRelu: {
    auto* s = o->builtin_options_as_LeakyReluOptions();
    ctx.check_slots(s, "LeakyReluOptions", slots_below(1));
    return {t, LeakyReluOptions{s->alpha()}};
  }
  case OptionsType::CallOnce: {
    auto* s = o->builtin_options_as_CallOnceOptions();
    ctx.check_slots(s, "CallOnceOptions", slots_below(1));
    return {t, CallOnceOptions{s->init_subgraph_index()}};
  }
  case OptionsType::If: {
    auto* s = o->builtin_options_as_IfOptions();
    ctx.check_slots(s, "IfOptions", slots_below(2));
    return {t, IfOptions{s->then_subgraph_index(), s->else_subgraph_index()}};
  }
  case OptionsType::While: {
    auto* s = o->builtin_options_as_WhileOptions();
    ctx.check_slots(s, "WhileOptions", slots_below(2));
    return {t, WhileOptions{s->cond_subgraph_index(), s->body_subgraph_index()}};
  }
  case OptionsType::VarHandle: {
    auto* s = o->builtin_options_as_VarHandleOptions();
    ctx.check_slots(s, "VarHandleOptions", slots_below(2));
    auto text = [](const flatbuffers::String* v) { return v ? v->str() : std::string(); };
    return {t, VarHandleOptions{text(s->container()), text(s->shared_name())}};
  }
  case OptionsType::ReadVariable:
  case OptionsType::AssignVariable:
  case OptionsType::Pad:
  case OptionsType::PadV2:
  case OptionsType::Transpose:
  case OptionsType::Dequantize:
  case OptionsType::Quantize:
  case OptionsType::MaximumMinimum:
  case OptionsType::Slice:
  case OptionsType::Abs:
  case OptionsType::HardSwish:
    ctx.check_slots(o->builtin_options(), options_table_name(t), 0);
    return {t, NoFieldOptions{}};
  case OptionsType::None: break;
  }
  ctx.uncarried(owner + " has builtin options of type " + std::to_string(tag) + ", which are not supported");
  return {};
}

}  // namespace tigris::tflite::detail
