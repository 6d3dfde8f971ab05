// Reader for the TensorFlow Lite Micro all-tensor dumps in <models>/refs/<model>.tflm/
// (see TFLM-REFERENCES.md there): index.json (tensors with quantization, operators in
// execution order) and one NumPy .npy file per tensor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace s8test {

struct DumpTensor {
  int index = -1;
  std::string name, file, dtype;  // dtype: "int8", "int32", "float32"
  std::vector<int32_t> shape;
  std::vector<float> scales;  // empty when unquantized
  std::vector<int32_t> zero_points;
};

struct DumpOp {
  int index = -1;
  std::string op;  // TFLite builtin name, e.g. "CONV_2D"
  std::vector<int> inputs, outputs;
};

struct Dump {
  std::string dir;  // .../<model>.tflm/tensors_seed0
  std::vector<DumpTensor> tensors;
  std::vector<DumpOp> ops;
  const DumpTensor& tensor(int i) const { return tensors.at((size_t)i); }
  // Raw little-endian bytes of tensor i's .npy payload; empty on a read error.
  std::vector<uint8_t> data(int i) const;
};

// Loads <models_dir>/refs/<model>.tflm/tensors_seed0; false (with `error`) when absent.
bool load_dump(const std::string& models_dir, const std::string& model, Dump* out, std::string* error);

// Stride and padding of one spatial axis of a TFLite window op, recovered from the input
// extent, kernel and output extent: SAME (out = ceil(in / s)) when it fits, else VALID.
struct AxisGeom {
  int32_t stride = 1, pad_a = 0, pad_b = 0;
};
bool infer_axis(int32_t in, int32_t k, int32_t out, AxisGeom* g);

// The payload of a NumPy format 1.x file; false on anything unexpected.
bool read_npy(const std::string& path, std::string* descr, std::vector<int64_t>* shape, std::vector<uint8_t>* payload);

}  // namespace s8test
