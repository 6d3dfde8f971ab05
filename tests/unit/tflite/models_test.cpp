// The reader against TFLite Micro's own view of the MLPerf Tiny models (the all-tensor
// dumps and manifest in models/refs), and the writer's round trip of every model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "export/tflite/reader.h"
#include "export/tflite/writer.h"
#include "tests/unit/tflite/test_models.h"
#include "tflite_schema_generated.h"

namespace {

using namespace tigris::tflite;
using nlohmann::json;
using tigris::test::have_models;
using tigris::test::models_dir;
using tigris::test::tflite_path;

const char* const kAllModels[] = {"vww_96_int8",
                                  "vww_96_float",
                                  "kws_ref_model",
                                  "kws_ref_model_float32",
                                  "pretrainedResnet_quant",
                                  "pretrainedResnet",
                                  "pretrainedResnet_large_int8",
                                  "pretrainedResnet_large_float",
                                  "ad01_int8",
                                  "ad01_fp32",
                                  "str_ww_ref_model"};

json load_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string dtype_of(TensorType t) {
  switch (t) {
  case TensorType::Int8: return "int8";
  case TensorType::Int32: return "int32";
  case TensorType::Float32: return "float32";
  case TensorType::Int16: return "int16";
  case TensorType::Int64: return "int64";
  default: return tensor_type_name(t);
  }
}

// Every tensor and operator of `m` as TFLite Micro reported them for the same file.
void expect_matches_dump(const Model& m, const std::string& dump_dir) {
  json index = load_json(dump_dir + "/index.json");
  const SubGraph& g = m.subgraphs.at(0);
  ASSERT_EQ(g.tensors.size(), index["tensors"].size());
  for (const json& jt : index["tensors"]) {
    size_t i = jt["index"];
    const Tensor& t = g.tensors[i];
    SCOPED_TRACE("tensor " + std::to_string(i));
    EXPECT_EQ(t.name, jt["name"].get<std::string>());
    EXPECT_EQ(dtype_of(t.type), jt["dtype"].get<std::string>());
    EXPECT_EQ(t.shape, jt["shape"].get<std::vector<int32_t>>());
    const json& scale = jt["scale"];
    if (scale.is_null()) {
      EXPECT_TRUE(!t.quantization || !t.quantization->affine());
    } else {
      ASSERT_TRUE(t.quantization && t.quantization->affine());
      std::vector<double> scales =
          scale.is_array() ? scale.get<std::vector<double>>() : std::vector<double>{scale.get<double>()};
      std::vector<int64_t> zps = jt["zero_point"].is_array() ? jt["zero_point"].get<std::vector<int64_t>>()
                                                             : std::vector<int64_t>{jt["zero_point"].get<int64_t>()};
      ASSERT_EQ(t.quantization->scale.size(), scales.size());
      for (size_t k = 0; k < scales.size(); ++k)
        EXPECT_FLOAT_EQ(t.quantization->scale[k], static_cast<float>(scales[k]));
      EXPECT_EQ(t.quantization->zero_point, zps);
      if (!jt["quantized_dimension"].is_null()) {
        EXPECT_EQ(t.quantization->quantized_dimension, jt["quantized_dimension"].get<int32_t>());
      }
    }
    std::string kind = jt["kind"];
    EXPECT_EQ(is_constant(m, t), kind == "constant");
    if (kind == "constant") {
      auto data = tensor_data(m, t);
      std::vector<uint8_t> expected = tigris::test::npy_payload(dump_dir + "/" + jt["file"].get<std::string>());
      EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), expected);
    }
  }
  ASSERT_EQ(g.operators.size(), index["operators"].size());
  for (const json& jo : index["operators"]) {
    const Operator& o = g.operators[jo["index"].get<size_t>()];
    EXPECT_EQ(operator_kind(m, o), jo["op"].get<std::string>());
    EXPECT_EQ(o.inputs, jo["inputs"].get<std::vector<int32_t>>());
    EXPECT_EQ(o.outputs, jo["outputs"].get<std::vector<int32_t>>());
  }
}

// Graph inputs/outputs and counts as in the TFLite Micro manifest.
void expect_matches_manifest(const Model& m, const json& entry) {
  const SubGraph& g = m.subgraphs.at(0);
  EXPECT_EQ(m.subgraphs.size(), entry["subgraphs"].get<size_t>());
  EXPECT_EQ(g.operators.size(), entry["operators"].get<size_t>());
  EXPECT_EQ(g.tensors.size(), entry["tensors"].get<size_t>());
  auto check_io = [&](const std::vector<int32_t>& io, const json& list) {
    ASSERT_EQ(io.size(), list.size());
    for (size_t k = 0; k < io.size(); ++k) {
      const Tensor& t = g.tensors[io[k]];
      EXPECT_EQ(io[k], list[k]["tensor_index"].get<int32_t>());
      EXPECT_EQ(t.name, list[k]["name"].get<std::string>());
      EXPECT_EQ(t.shape, list[k]["shape"].get<std::vector<int32_t>>());
      float scale = t.quantization && t.quantization->affine() ? t.quantization->scale[0] : 0.0f;
      EXPECT_FLOAT_EQ(scale, list[k]["scale"].get<float>());
    }
  };
  check_io(g.inputs, entry["inputs"]);
  check_io(g.outputs, entry["outputs"]);
}

TEST(TfliteReader, MatchesTfliteMicroDumps) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  for (const char* name : {"vww_96_int8", "kws_ref_model", "vww_96_float"}) {
    SCOPED_TRACE(name);
    Model m = read_model_file(tflite_path(name));
    expect_matches_dump(m, models_dir() + "/refs/" + name + ".tflm/tensors_seed0");
  }
}

TEST(TfliteReader, MatchesTfliteMicroManifest) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  json manifest = load_json(models_dir() + "/refs/tflm-manifest.json");
  for (auto& [name, entry] : manifest.items()) {
    SCOPED_TRACE(name);
    expect_matches_manifest(read_model_file(tflite_path(name)), entry);
  }
}

TEST(TfliteReader, VwwFileFacts) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  Model m = read_model_file(tflite_path("vww_96_int8"));
  EXPECT_EQ(m.version, 3u);
  EXPECT_EQ(m.description, "MLIR Converted.");
  ASSERT_EQ(m.metadata.size(), 1u);
  EXPECT_EQ(m.metadata[0].name, "min_runtime_version");
  EXPECT_EQ(m.subgraphs[0].operators.size(), 31u);
  const Operator& conv0 = m.subgraphs[0].operators[0];
  ASSERT_NE(conv0.options.get<Conv2DOptions>(), nullptr);
  EXPECT_EQ(conv0.options.get<Conv2DOptions>()->stride_h, 2);
  EXPECT_EQ(conv0.options.get<Conv2DOptions>()->padding, Padding::Same);
  EXPECT_EQ(conv0.options.get<Conv2DOptions>()->activation, Activation::Relu);
  const Operator& pool = m.subgraphs[0].operators[27];
  ASSERT_NE(pool.options.get<Pool2DOptions>(), nullptr);
  EXPECT_EQ(pool.options.get<Pool2DOptions>()->filter_h, 3);
  EXPECT_EQ(pool.options.get<Pool2DOptions>()->padding, Padding::Valid);
  EXPECT_TRUE(m.uncarried.empty());
}

// Byte offset of every buffer's data in a written file, through the raw FlatBuffer.
std::vector<size_t> data_offsets(const std::vector<uint8_t>& bytes) {
  std::vector<size_t> out;
  const auto* model = tigris::tflite::fb::GetModel(bytes.data());
  for (const auto* b : *model->buffers())
    if (b->data() && b->data()->size() > 0) out.push_back(b->data()->data() - bytes.data());
  return out;
}

TEST(TfliteWriter, RoundTripsEveryModel) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  for (const char* name : kAllModels) {
    SCOPED_TRACE(name);
    Model m = read_model_file(tflite_path(name));
    std::vector<uint8_t> bytes = write_model(m);
    Model back = read_model(bytes, "written");
    EXPECT_TRUE(back == m);
    EXPECT_EQ(std::memcmp(bytes.data() + 4, "TFL3", 4), 0);
    for (size_t off : data_offsets(bytes)) EXPECT_EQ(off % 4, 0u) << "buffer data at " << off;
    const auto* raw = tigris::tflite::fb::GetModel(bytes.data());
    EXPECT_EQ(raw->version(), 3u);
    EXPECT_EQ(raw->buffers()->Get(0)->data(), nullptr);
    ASSERT_EQ(raw->operator_codes()->size(), m.operator_codes.size());
    for (flatbuffers::uoffset_t i = 0; i < raw->operator_codes()->size(); ++i) {
      const auto* c = raw->operator_codes()->Get(i);
      EXPECT_EQ(c->builtin_code(), m.operator_codes[i].code);
      EXPECT_EQ(c->deprecated_builtin_code(), std::min<int32_t>(c->builtin_code(), 127));
    }
  }
}

// These three files were written by FlatBuffers' Python object API (fields in declaration
// order, vtables shared by field offsets, data 4-aligned): the writer reproduces them byte
// for byte, so an export grows a file only by what it adds.
TEST(TfliteWriter, ObjectApiFilesRoundTripToIdenticalBytes) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  for (const char* name : {"vww_96_int8", "pretrainedResnet_quant", "str_ww_ref_model"}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> in = read_file_bytes(tflite_path(name));
    std::vector<uint8_t> out = write_model(read_model(in, name));
    ASSERT_EQ(out.size(), in.size());
    EXPECT_TRUE(out == in);
  }
}

TEST(TfliteWriter, WrittenFilesStillMatchTfliteMicroDumps) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  for (const char* name : {"vww_96_int8", "kws_ref_model", "vww_96_float"}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> bytes = write_model(read_model_file(tflite_path(name)));
    expect_matches_dump(read_model(bytes, "written"), models_dir() + "/refs/" + name + ".tflm/tensors_seed0");
  }
}

TEST(TfliteWriter, OldStyleOpCodesGetBothFields) {
  if (!have_models()) GTEST_SKIP() << "models folder absent: " << models_dir();
  // kws_ref_model stores its codes in the byte field only (builtin_code reads 0).
  std::vector<uint8_t> in = read_file_bytes(tflite_path("kws_ref_model"));
  const auto* raw_in = tigris::tflite::fb::GetModel(in.data());
  EXPECT_EQ(raw_in->operator_codes()->Get(0)->builtin_code(), 0);
  std::vector<uint8_t> out = write_model(read_model(in, "kws"));
  const auto* raw_out = tigris::tflite::fb::GetModel(out.data());
  ASSERT_EQ(raw_out->operator_codes()->size(), raw_in->operator_codes()->size());
  for (flatbuffers::uoffset_t i = 0; i < raw_in->operator_codes()->size(); ++i) {
    int8_t byte = raw_in->operator_codes()->Get(i)->deprecated_builtin_code();
    EXPECT_EQ(raw_out->operator_codes()->Get(i)->builtin_code(), byte);
    EXPECT_EQ(raw_out->operator_codes()->Get(i)->deprecated_builtin_code(), byte);
  }
}

}  // namespace
