// Crafting small .tflite files field by field, including parts TiGrIS refuses.
// The base model: tensors t0 (input, int8 [1,2]) and t1 (output), one RELU t0 -> t1,
// buffers [empty, empty]. Hooks add or change fields.
#pragma once

#include <functional>
#include <vector>

#include "tflite_schema_generated.h"

namespace tigris::test {

namespace fb = tigris::tflite::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

struct Craft {
  // Called before the table is started (create children here), then on its builder.
  std::function<void(FlatBufferBuilder&)> before_tensor, before_operator, before_model, before_buffer, before_quant;
  std::function<void(fb::TensorBuilder&)> on_tensor;  // tensor 0 only
  std::function<void(fb::OperatorBuilder&)> on_operator;
  std::function<void(fb::ModelBuilder&)> on_model;
  std::function<void(fb::BufferBuilder&)> on_buffer;                 // buffer 1 only
  std::function<void(fb::QuantizationParametersBuilder&)> on_quant;  // tensor 0's
  std::vector<int32_t> op_inputs{0}, op_outputs{1}, graph_inputs{0}, graph_outputs{1};
  uint32_t opcode_index = 0;
  uint32_t tensor0_buffer = 1;
  int32_t opcode = 19;        // RELU
  uint8_t buffer0_bytes = 0;  // > 0: buffer 0 holds that many bytes
};

inline std::vector<uint8_t> craft(const Craft& c) {
  FlatBufferBuilder b;
  auto run = [&](const auto& hook, auto&... args) {
    if (hook) hook(args...);
  };
  run(c.before_quant, b);
  std::vector<float> scale{0.5f};
  std::vector<int64_t> zp{0};
  auto sv = b.CreateVector(scale);
  auto zv = b.CreateVector(zp);
  fb::QuantizationParametersBuilder qb(b);
  qb.add_scale(sv);
  qb.add_zero_point(zv);
  run(c.on_quant, qb);
  auto quant = qb.Finish();

  std::vector<int32_t> shape{1, 2};
  run(c.before_tensor, b);
  auto shape0 = b.CreateVector(shape);
  auto name0 = b.CreateString("in");
  fb::TensorBuilder tb(b);
  tb.add_shape(shape0);
  tb.add_type(9);
  tb.add_buffer(c.tensor0_buffer);
  tb.add_name(name0);
  tb.add_quantization(quant);
  run(c.on_tensor, tb);
  auto t0 = tb.Finish();
  auto t1 = fb::CreateTensor(b, b.CreateVector(shape), 9, 0, b.CreateString("out"));
  auto tensors = b.CreateVector(std::vector<Offset<fb::Tensor>>{t0, t1});

  run(c.before_operator, b);
  auto ins = b.CreateVector(c.op_inputs);
  auto outs = b.CreateVector(c.op_outputs);
  fb::OperatorBuilder ob(b);
  ob.add_opcode_index(c.opcode_index);
  ob.add_inputs(ins);
  ob.add_outputs(outs);
  run(c.on_operator, ob);
  auto op = ob.Finish();
  auto ops = b.CreateVector(std::vector<Offset<fb::Operator>>{op});
  auto graph = fb::CreateSubGraph(b, tensors, b.CreateVector(c.graph_inputs), b.CreateVector(c.graph_outputs), ops,
                                  b.CreateString("main"));
  auto graphs = b.CreateVector(std::vector<Offset<fb::SubGraph>>{graph});
  auto code = fb::CreateOperatorCode(b, static_cast<int8_t>(std::min(c.opcode, 127)), 0, 1, c.opcode);
  auto codes = b.CreateVector(std::vector<Offset<fb::OperatorCode>>{code});

  Offset<flatbuffers::Vector<uint8_t>> data0 = 0;
  if (c.buffer0_bytes) data0 = b.CreateVector(std::vector<uint8_t>(c.buffer0_bytes, 1));
  auto buf0 = fb::CreateBuffer(b, data0);
  run(c.before_buffer, b);
  fb::BufferBuilder bb(b);
  run(c.on_buffer, bb);
  auto buf1 = bb.Finish();
  auto buffers = b.CreateVector(std::vector<Offset<fb::Buffer>>{buf0, buf1});

  run(c.before_model, b);
  fb::ModelBuilder mb(b);
  mb.add_version(3);
  mb.add_operator_codes(codes);
  mb.add_subgraphs(graphs);
  mb.add_buffers(buffers);
  run(c.on_model, mb);
  fb::FinishModelBuffer(b, mb.Finish());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

// Adds an int32 field at `slot` to the table under construction.
inline void add_slot(FlatBufferBuilder& b, int slot, int32_t value) {
  b.AddElement<int32_t>(flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(slot)), value, 0);
}

}  // namespace tigris::test
