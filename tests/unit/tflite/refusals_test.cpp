// Crafted files: every part of the schema the model does not carry is refused with a
// message naming it; every broken index is refused; a lenient read records instead.
#include <gtest/gtest.h>

#include <filesystem>

#include "export/tflite/reader.h"
#include "export/tflite/writer.h"
#include "tests/unit/tflite/craft.h"

namespace {

using namespace tigris::tflite;
using tigris::test::add_slot;
using tigris::test::Craft;
using tigris::test::craft;
using tigris::test::FlatBufferBuilder;
using tigris::test::Offset;
namespace fb = tigris::tflite::fb;

std::string refusal(const std::vector<uint8_t>& bytes) {
  try {
    read_model(bytes, "crafted.tflite");
  } catch (const ModelError& e) {
    EXPECT_EQ(e.file(), "crafted.tflite");
    EXPECT_EQ(std::string(e.what()), "crafted.tflite: " + e.reason());
    return e.reason();
  }
  return "(accepted)";
}

TEST(TfliteRefusals, BaseModelIsAccepted) {
  Model m = read_model(craft({}), "crafted.tflite");
  ASSERT_EQ(m.subgraphs.size(), 1u);
  EXPECT_EQ(operator_kind(m, m.subgraphs[0].operators[0]), "RELU");
  EXPECT_TRUE(read_model(write_model(m), "again") == m);
}

TEST(TfliteRefusals, NotTfliteOrBroken) {
  std::vector<uint8_t> bytes = craft({});
  std::vector<uint8_t> other = bytes;
  other[4] = 'X';
  EXPECT_EQ(refusal(other), "not a TFLite file (no TFL3 identifier)");
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
  EXPECT_EQ(refusal(cut), "not a valid TFLite FlatBuffer (the verifier rejects it)");
  EXPECT_EQ(refusal({}), "not a TFLite file (no TFL3 identifier)");
}

TEST(TfliteRefusals, TensorParts) {
  Offset<fb::SparsityParameters> sparsity;
  Craft c;
  c.before_tensor = [&](FlatBufferBuilder& b) { sparsity = fb::CreateSparsityParameters(b); };
  c.on_tensor = [&](fb::TensorBuilder& t) { t.add_sparsity(sparsity); };
  EXPECT_EQ(refusal(craft(c)), "tensor 0 (in) is sparse, which is not supported");

  Offset<flatbuffers::Vector<Offset<fb::VariantSubType>>> variants;
  Craft v;
  v.before_tensor = [&](FlatBufferBuilder& b) {
    variants = b.CreateVector(std::vector<Offset<fb::VariantSubType>>{fb::CreateVariantSubType(b)});
  };
  v.on_tensor = [&](fb::TensorBuilder& t) { t.add_variant_tensors(variants); };
  EXPECT_EQ(refusal(craft(v)), "tensor 0 (in) has variant subtypes, which are not supported");

  Craft e;
  e.on_tensor = [](fb::TensorBuilder& t) { t.add_external_buffer(3); };
  EXPECT_EQ(refusal(craft(e)), "tensor 0 (in) uses an external buffer, which is not supported");

  Craft n;
  n.on_tensor = [](fb::TensorBuilder& t) { add_slot(t.fbb_, 11, 5); };
  EXPECT_EQ(refusal(craft(n)), "the Tensor table sets field 11, which is not supported");
}

TEST(TfliteRefusals, QuantizationDetails) {
  Offset<fb::QuantizationDetailsTable> details;
  Craft c;
  c.before_quant = [&](FlatBufferBuilder& b) { details = fb::CreateQuantizationDetailsTable(b); };
  c.on_quant = [&](fb::QuantizationParametersBuilder& q) {
    q.add_details_type(fb::QuantizationDetails::QuantizationDetailsTable);
    q.add_details(details.Union());
  };
  EXPECT_EQ(refusal(craft(c)), "tensor 0 (in) has quantization details (type 1), which are not supported");
  // TensorFlow Lite Micro ignores the details: a lenient read keeps the record without them.
  Model m = read_model(craft(c), "crafted.tflite", ReadOptions{.lenient = true});
  EXPECT_TRUE(m.uncarried.empty());
  ASSERT_TRUE(m.subgraphs[0].tensors[0].quantization.has_value());
  EXPECT_TRUE(m.subgraphs[0].tensors[0].quantization->details_dropped);
  EXPECT_EQ(m.subgraphs[0].tensors[0].quantization->scale, std::vector<float>{0.5f});
  EXPECT_THROW(write_model(m), ModelError);
}

TEST(TfliteRefusals, BufferOutsideTheFlatBuffer) {
  Craft c;
  c.on_buffer = [](fb::BufferBuilder& b) {
    b.add_offset(1000);
    b.add_size(10);
  };
  EXPECT_EQ(refusal(craft(c)),
            "buffer 1 stores its data outside the FlatBuffer (offset 1000, size 10), which is not supported");
  Craft zero;
  zero.buffer0_bytes = 4;
  EXPECT_EQ(refusal(craft(zero)), "buffer 0 holds data; it must be the empty buffer");
}

TEST(TfliteRefusals, OperatorParts) {
  Craft large;
  large.on_operator = [](fb::OperatorBuilder& o) {
    o.add_large_custom_options_offset(100);
    o.add_large_custom_options_size(8);
  };
  EXPECT_EQ(refusal(craft(large)),
            "operator 0 (RELU) keeps custom options outside the FlatBuffer, which is not supported");

  Offset<fb::StablehloOptionsTable> hlo;
  Craft two;
  two.before_operator = [&](FlatBufferBuilder& b) { hlo = fb::CreateStablehloOptionsTable(b); };
  two.on_operator = [&](fb::OperatorBuilder& o) {
    o.add_builtin_options_2_type(fb::BuiltinOptions2::StablehloOptionsTable);
    o.add_builtin_options_2(hlo.Union());
  };
  EXPECT_EQ(refusal(craft(two)), "operator 0 (RELU) has BuiltinOptions2 (type 1), which are not supported");

  Offset<void> table;
  Craft unknown;
  unknown.before_operator = [&](FlatBufferBuilder& b) { table = Offset<void>(b.EndTable(b.StartTable())); };
  unknown.on_operator = [&](fb::OperatorBuilder& o) {
    o.add_builtin_options_type(static_cast<fb::BuiltinOptions>(35));
    o.add_builtin_options(table);
  };
  EXPECT_EQ(refusal(craft(unknown)), "operator 0 (RELU) has builtin options of type 35, which are not supported");

  Craft tag_only;
  tag_only.on_operator = [](fb::OperatorBuilder& o) { o.add_builtin_options_type(fb::BuiltinOptions::PadOptions); };
  EXPECT_EQ(refusal(craft(tag_only)),
            "operator 0 (RELU) names options table type 22 but has no table, which is not supported");

  Offset<void> resize;
  Craft deprecated;
  deprecated.opcode = 23;  // RESIZE_BILINEAR with its deprecated new_height set
  deprecated.before_operator = [&](FlatBufferBuilder& b) {
    auto start = b.StartTable();
    add_slot(b, 0, 12);
    resize = Offset<void>(b.EndTable(start));
  };
  deprecated.on_operator = [&](fb::OperatorBuilder& o) {
    o.add_builtin_options_type(fb::BuiltinOptions::ResizeBilinearOptions);
    o.add_builtin_options(resize);
  };
  EXPECT_EQ(refusal(craft(deprecated)), "the ResizeBilinearOptions table sets field 0, which is not supported");
}

TEST(TfliteRefusals, ModelParts) {
  Offset<flatbuffers::Vector<Offset<fb::ExternalBuffer>>> ext;
  Craft c;
  c.before_model = [&](FlatBufferBuilder& b) {
    ext = b.CreateVector(std::vector<Offset<fb::ExternalBuffer>>{fb::CreateExternalBuffer(b)});
  };
  c.on_model = [&](fb::ModelBuilder& m) { m.add_external_buffers(ext); };
  EXPECT_EQ(refusal(craft(c)), "the model keeps buffers in external files, which is not supported");

  Craft newer;
  newer.on_model = [](fb::ModelBuilder& m) { add_slot(m.fbb_, 10, 1); };
  EXPECT_EQ(refusal(craft(newer)), "the Model table sets field 10, which is not supported");
}

TEST(TfliteRefusals, IndicesOutOfRange) {
  Craft op_in;
  op_in.op_inputs = {5};
  EXPECT_EQ(refusal(craft(op_in)), "operator 0 (RELU): tensor index 5 is out of range for 2 tensors");
  Craft op_out;
  op_out.op_outputs = {-1};
  EXPECT_EQ(refusal(craft(op_out)), "operator 0 (RELU): tensor index -1 is out of range for 2 tensors");
  Craft in;
  in.graph_inputs = {7};
  EXPECT_EQ(refusal(craft(in)), "model inputs: tensor index 7 is out of range for 2 tensors");
  Craft out;
  out.graph_outputs = {2};
  EXPECT_EQ(refusal(craft(out)), "model outputs: tensor index 2 is out of range for 2 tensors");
  Craft buf;
  buf.tensor0_buffer = 9;
  EXPECT_EQ(refusal(craft(buf)), "tensor 0 (in): buffer index 9 is out of range for 2 buffers");
  Craft code;
  code.opcode_index = 3;
  EXPECT_EQ(refusal(craft(code)), "operator 0: operator code index 3 is out of range for 1 operator code");

  Offset<flatbuffers::Vector<Offset<fb::Metadata>>> md;
  Craft meta;
  meta.before_model = [&](FlatBufferBuilder& b) {
    md = b.CreateVector(
        std::vector<Offset<fb::Metadata>>{fb::CreateMetadata(b, b.CreateString("min_runtime_version"), 5)});
  };
  meta.on_model = [&](fb::ModelBuilder& m) { m.add_metadata(md); };
  EXPECT_EQ(refusal(craft(meta)), "metadata min_runtime_version: buffer index 5 is out of range for 2 buffers");

  for (auto [subgraph, tensor, expected] :
       {std::tuple{2u, 0u, "signature serving_default: subgraph index 2 is out of range for 1 subgraph"},
        std::tuple{0u, 4u, "signature serving_default: tensor index 4 is out of range for 2 tensors"}}) {
    Offset<flatbuffers::Vector<Offset<fb::SignatureDef>>> sigs;
    Craft sig;
    sig.before_model = [&](FlatBufferBuilder& b) {
      auto map =
          b.CreateVector(std::vector<Offset<fb::TensorMap>>{fb::CreateTensorMap(b, b.CreateString("x"), tensor)});
      sigs = b.CreateVector(std::vector<Offset<fb::SignatureDef>>{
          fb::CreateSignatureDef(b, map, 0, b.CreateString("serving_default"), subgraph)});
    };
    sig.on_model = [&](fb::ModelBuilder& m) { m.add_signature_defs(sigs); };
    EXPECT_EQ(refusal(craft(sig)), expected);
  }
}

TEST(TfliteRefusals, LenientReadRecordsAndWriterRefuses) {
  Offset<fb::SparsityParameters> sparsity;
  Craft c;
  c.before_tensor = [&](FlatBufferBuilder& b) { sparsity = fb::CreateSparsityParameters(b); };
  c.on_tensor = [&](fb::TensorBuilder& t) {
    t.add_sparsity(sparsity);
    t.add_external_buffer(1);
  };
  Model m = read_model(craft(c), "crafted.tflite", ReadOptions{.lenient = true});
  ASSERT_EQ(m.uncarried.size(), 2u);
  EXPECT_EQ(m.uncarried[0], "tensor 0 (in) is sparse, which is not supported");
  EXPECT_EQ(m.uncarried[1], "tensor 0 (in) uses an external buffer, which is not supported");
  try {
    write_model(m);
    ADD_FAILURE() << "written";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.reason(),
              "the model holds parts that cannot be written: tensor 0 (in) is sparse, which is not supported");
  }
  // Broken indices stay fatal even when lenient.
  Craft bad;
  bad.op_inputs = {9};
  EXPECT_THROW(read_model(craft(bad), "x", ReadOptions{.lenient = true}), ModelError);
}

TEST(TfliteWriter, WritesAtomically) {
  Model m = read_model(craft({}), "crafted.tflite");
  auto dir = std::filesystem::temp_directory_path() / ("tigris_writer_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "out.tflite").string();
  write_model_file(m, path);
  EXPECT_TRUE(read_model_file(path) == m);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  EXPECT_THROW(write_model_file(m, (dir / "missing" / "out.tflite").string()), ModelError);
  Model broken = m;
  broken.subgraphs[0].operators[0].inputs = {3};
  std::string other = (dir / "broken.tflite").string();
  EXPECT_THROW(write_model_file(broken, other), ModelError);
  EXPECT_FALSE(std::filesystem::exists(other));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
