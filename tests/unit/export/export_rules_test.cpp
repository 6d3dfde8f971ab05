// The export rules on small built models: runs, folds, several runs, every refusal
// reason of the spec (through the command entry point: exit 1, no file), the report text
// and analyze's rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "export/analyze_rows.h"
#include "export/banding/fold.h"
#include "export/banding/runs.h"
#include "export/command.h"
#include "export/tflite/reader.h"
#include "export/tflite/writer.h"
#include "tests/unit/export/mini_eval.h"
#include "tests/unit/export/model_maker.h"
#include "tests/unit/tflite/craft.h"

namespace {

using namespace tigris;
using exporter::ExportOptions;
using exporter::Refusal;
using test::ModelMaker;
using tflite::Activation;
using tflite::Padding;

// input [1,32,32,8] -> conv 3x3 s1 (32 ch) -> max pool 2x2 s2 -> [1,16,16,32] -> RESHAPE ->
// conv 3x3 s1 (96 ch) -> max pool 3x3 s2 SAME -> [1,8,8,96]: two peaks (48 and 40 KiB) a
// RESHAPE separates.
ModelMaker two_peaks() {
  ModelMaker mm;
  int32_t in = mm.tensor({1, 32, 32, 8}, tflite::TensorType::Int8, 0.5f, -3);
  int32_t c1 = mm.tensor({1, 32, 32, 32}, tflite::TensorType::Int8, 0.5f, -128);
  int32_t p1 = mm.tensor({1, 16, 16, 32}, tflite::TensorType::Int8, 0.5f, -128);
  int32_t r = mm.tensor({1, 16, 16, 32}, tflite::TensorType::Int8, 0.5f, -128);
  int32_t c2 = mm.tensor({1, 16, 16, 96}, tflite::TensorType::Int8, 0.5f, -128);
  int32_t out = mm.tensor({1, 8, 8, 96}, tflite::TensorType::Int8, 0.5f, -128);
  mm.op(tflite::op::kConv2D, {in, mm.weights({32, 3, 3, 8}, 3, 32), mm.bias(32)}, {c1},
        test::conv_options(1, Padding::Same, Activation::Relu));
  mm.op(tflite::op::kMaxPool2D, {c1}, {p1}, test::pool_options(2, 2));
  mm.op(tflite::op::kReshape, {p1, mm.ints({4}, {1, 16, 16, 32})}, {r});
  mm.op(tflite::op::kConv2D, {r, mm.weights({96, 3, 3, 32}, -2, 96), mm.bias(96)}, {c2},
        test::conv_options(1, Padding::Same, Activation::Relu));
  mm.op(tflite::op::kMaxPool2D, {c2}, {out}, test::pool_options(2, 3, Padding::Same));
  mm.io({in}, {out});
  return mm;
}

void expect_same_outputs(const tflite::Model& a_model, const tflite::Model& b_model, uint32_t seed) {
  test::MiniEval a(a_model), b(b_model);
  a.random_inputs(seed);
  b.set_inputs_from(a);
  a.run();
  b.run();
  int32_t out_a = a_model.subgraphs[0].outputs[0], out_b = b_model.subgraphs[0].outputs[0];
  ASSERT_FALSE(a.value(out_a).empty());
  EXPECT_EQ(a.value(out_a), b.value(out_b));
}

TEST(ExportRules, RunsNeedAStridedOrPoolingOperator) {
  ModelMaker mm = two_peaks();
  auto ops = banding::band_ops(mm.m);
  EXPECT_FALSE(ops[2].has_value());  // RESHAPE
  auto runs = banding::candidate_runs(mm.m, ops);
  std::vector<banding::Run> expected{{0, 1}, {1, 1}, {3, 4}, {4, 4}};  // conv alone is not strided
  EXPECT_EQ(runs, expected);
}

TEST(ExportRules, RunsKeepTheirTensorsInside) {
  ModelMaker mm = two_peaks();
  // Make conv 0's output a graph output: it may end a run but not sit inside one.
  mm.g().outputs.push_back(1);
  auto runs = banding::candidate_runs(mm.m, banding::band_ops(mm.m));
  EXPECT_EQ(std::count(runs.begin(), runs.end(), banding::Run{0, 1}), 0);
}

TEST(ExportRules, SeveralRunsWhenAsked) {
  ModelMaker mm = two_peaks();
  auto one = exporter::plan_export(mm.m, ExportOptions{tflm::Target::ArmNoneEabi, 1});
  auto two = exporter::plan_export(mm.m, ExportOptions{tflm::Target::ArmNoneEabi, 2});
  ASSERT_EQ(one.refusal, Refusal::None) << one.reason;
  ASSERT_EQ(two.refusal, Refusal::None) << two.reason;
  EXPECT_EQ(one.plan.runs.size(), 1u);
  ASSERT_EQ(two.plan.runs.size(), 2u);
  EXPECT_EQ(two.plan.runs[0].first_op, 0u);
  EXPECT_EQ(two.plan.runs[1].first_op, 3u);
  EXPECT_LT(two.plan.total_change(), one.plan.total_change());
  expect_same_outputs(mm.m, one.model, 11);
  expect_same_outputs(mm.m, two.model, 12);
  // The max pool with SAME padding gets PADV2 with the lowest int8 value.
  bool padv2 = false;
  for (const auto& o : two.model.subgraphs[0].operators)
    padv2 |= tflite::builtin_code(two.model, o) == tflite::op::kPadV2;
  EXPECT_TRUE(padv2);
  EXPECT_NE(exporter::describe_plan(two.plan).find("operators 0-1 computed in "), std::string::npos);
}

// input [1,16,16,4] -> PAD (0,1 / 0,1) -> conv 3x3 s2 VALID -> [1,8,8,8] (= SAME for 16 -> 8)
ModelMaker pad_then_conv(int32_t top) {
  ModelMaker mm;
  int32_t in = mm.tensor({1, 16, 16, 4}, tflite::TensorType::Int8, 0.5f, 5);
  int32_t padded = mm.tensor({1, 16 + top + 1, 17, 4}, tflite::TensorType::Int8, 0.5f, 5);
  int32_t out = mm.tensor({1, 8, 8, 8}, tflite::TensorType::Int8, 0.5f, -1);
  mm.op(tflite::op::kPad, {in, mm.ints({4, 2}, {0, 0, top, 1, 0, 1, 0, 0})}, {padded});
  mm.op(tflite::op::kConv2D, {padded, mm.weights({8, 3, 3, 4}, 2, 8), mm.bias(8)}, {out},
        test::conv_options(2, Padding::Valid));
  mm.io({in}, {out});
  return mm;
}

TEST(ExportRules, PadEqualToSamePaddingIsFolded) {
  ModelMaker mm = pad_then_conv(0);
  banding::Folded f = banding::fold_pads(mm.m);
  EXPECT_EQ(f.folded, 1);
  ASSERT_EQ(f.model.subgraphs[0].operators.size(), 1u);
  const auto& conv = f.model.subgraphs[0].operators[0];
  EXPECT_EQ(conv.options.get<tflite::Conv2DOptions>()->padding, Padding::Same);
  EXPECT_EQ(f.origin, (std::vector<int>{1}));
  expect_same_outputs(mm.m, f.model, 5);
  // PyTorch-style symmetric padding (1,1) is not what SAME gives for 16 -> 8: kept.
  EXPECT_EQ(banding::fold_pads(pad_then_conv(1).m).folded, 0);
}

TEST(ExportRules, DescribePlan) {
  exporter::ExportPlan p;
  p.runs = {{5, 5, 3}};
  p.folded_pads = 1;
  p.macs_before = 1000;
  p.macs_after = 1012;
  p.operators_after = 20;
  EXPECT_EQ(exporter::describe_plan(p),
            "operator 5 computed in 3 row bands, 1 PAD operator folded, +1.20% MACs; 20 operators after export");
  p.runs = {{0, 1, 2}, {4, 6, 10}};
  p.folded_pads = 2;
  EXPECT_EQ(exporter::describe_plan(p),
            "operators 0-1 computed in 2 row bands, operators 4-6 computed in 10 row bands, "
            "2 PAD operators folded, +1.20% MACs; 20 operators after export");
  EXPECT_EQ(exporter::format_bytes(1023), "1023 B");
  EXPECT_EQ(exporter::format_bytes(333288), "325.48 KiB");
  EXPECT_EQ(exporter::format_bytes(3 << 20), "3.00 MiB");
  EXPECT_EQ(exporter::format_signed_bytes(0), "+0 B");
  EXPECT_EQ(exporter::format_signed_bytes(-512), "-512 B");
  EXPECT_EQ(exporter::default_output_path("dir/m.tflite"), "dir/m_export.tflite");
  EXPECT_EQ(exporter::default_output_path("m.tflite"), "m_export.tflite");
}

// ---- Refusals through the command ---------------------------------------------------------
struct Refused {
  int status;
  std::string out, error;
  size_t files_after;
};

Refused export_bytes(const std::vector<uint8_t>& bytes) {
  auto dir = std::filesystem::temp_directory_path() / ("tigris_refusal_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "m.tflite").string();
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  exporter::ExportRequest req;
  req.model = path;
  exporter::ExportResult r = exporter::run_export(req);
  size_t files = static_cast<size_t>(
      std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()));
  std::filesystem::remove_all(dir);
  return {r.exit_status, r.out, r.error, files};
}

Refused export_model(const tflite::Model& m) { return export_bytes(tflite::write_model(m)); }

void expect_refused(const Refused& r, const std::string& reason) {
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.error, "no model written: " + reason);
  EXPECT_EQ(r.files_after, 1u);  // only the input
}

TEST(ExportRefusals, EveryReasonOfTheSpec) {
  ModelMaker two = two_peaks();
  two.m.subgraphs.push_back(two.m.subgraphs[0]);
  expect_refused(export_model(two.m), "models with several subgraphs are not exported");

  ModelMaker offline = two_peaks();
  offline.m.metadata.push_back({"OfflineMemoryAllocation", tflite::add_buffer(offline.m, std::vector<uint8_t>(12, 0))});
  expect_refused(export_model(offline.m), "metadata OfflineMemoryAllocation is not supported");

  ModelMaker kept = two_peaks();  // the two metadata names export keeps
  kept.m.metadata.push_back({"min_runtime_version", tflite::add_buffer(kept.m, {'1', '.', '5', 0})});
  kept.m.metadata.push_back({"CONVERSION_METADATA", tflite::add_buffer(kept.m, {1, 2, 3, 4})});
  auto kept_out = exporter::plan_export(kept.m);
  ASSERT_EQ(kept_out.refusal, Refusal::None);
  ASSERT_EQ(kept_out.model.metadata.size(), 2u);
  EXPECT_EQ(kept_out.model.buffers[kept_out.model.metadata[1].buffer].data, (std::vector<uint8_t>{1, 2, 3, 4}));

  ModelMaker int4 = two_peaks();
  int4.g().tensors[6].type = tflite::TensorType::Int4;  // a filter
  expect_refused(export_model(int4.m), "a tensor type TFLite Micro's arena model does not know: INT4, tensor 6 (w6)");

  ModelMaker custom = two_peaks();
  custom.m.operator_codes.push_back({tflite::op::kCustom, "TFLite_Detection_PostProcess", 1});
  tflite::Operator c;
  c.opcode_index = static_cast<uint32_t>(custom.m.operator_codes.size() - 1);
  c.inputs = {5};
  c.outputs = {5};
  c.custom_options = std::vector<uint8_t>{0};
  custom.g().operators.push_back(c);
  expect_refused(export_model(custom.m),
                 "TFLite Micro's scratch buffers for CUSTOM (TFLite_Detection_PostProcess) are not modeled");

  ModelMaker split = two_peaks();
  split.op(49, {5}, {5});
  expect_refused(export_model(split.m), "TFLite Micro's persistent allocations for SPLIT are not modeled");

  test::Craft bad_index;
  bad_index.op_inputs = {4};
  Refused r = export_bytes(test::craft(bad_index));
  expect_refused(r, "operator 0 (RELU): tensor index 4 is out of range for 2 tensors");
  EXPECT_EQ(r.out, "");  // nothing was read

  test::Craft sparse;
  test::Offset<tflite::fb::SparsityParameters> sp;
  sparse.before_tensor = [&](test::FlatBufferBuilder& b) { sp = tflite::fb::CreateSparsityParameters(b); };
  sparse.on_tensor = [&](tflite::fb::TensorBuilder& t) { t.add_sparsity(sp); };
  Refused s = export_bytes(test::craft(sparse));
  expect_refused(s, "tensor 0 (in) is sparse, which is not supported");
  EXPECT_NE(s.out.find("1 operators"), std::string::npos);

  test::Craft newer;
  newer.on_tensor = [](tflite::fb::TensorBuilder& t) { test::add_slot(t.fbb_, 12, 1); };
  expect_refused(export_bytes(test::craft(newer)), "the Tensor table sets field 12, which is not supported");

  expect_refused(export_bytes(test::craft({})), "no rewrite lowers the arena");
}

TEST(ExportRefusals, MissingFile) {
  exporter::ExportRequest req;
  req.model = "/nonexistent/model.tflite";
  exporter::ExportResult r = exporter::run_export(req);
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.error, "no model written: /nonexistent/model.tflite: cannot open: No such file or directory");
}

// ---- analyze's rows -----------------------------------------------------------------------
TEST(AnalyzeRows, ExportRowAndNone) {
  ModelMaker mm = two_peaks();
  exporter::TflmRows rows = exporter::tflite_micro_rows(mm.m);
  ASSERT_TRUE(rows.shown);
  EXPECT_TRUE(rows.export_written);
  EXPECT_EQ(rows.tensor_arena_bytes, rows.outcome.plan.before.head);
  EXPECT_EQ(rows.export_value, exporter::format_signed_bytes(rows.outcome.plan.total_change()));
  EXPECT_NE(rows.export_detail.find(", reference kernels on arm-none-eabi"), std::string::npos);
  EXPECT_EQ(rows.export_detail.rfind("head ", 0), 0u);

  ModelMaker split = two_peaks();
  split.op(49, {5}, {5});
  rows = exporter::tflite_micro_rows(split.m);
  ASSERT_TRUE(rows.shown);
  EXPECT_EQ(rows.export_value, "none");
  EXPECT_EQ(rows.export_detail, "TFLite Micro's persistent allocations for SPLIT are not modeled");

  tflite::Model relu = tflite::read_model(test::craft({}), "relu");
  rows = exporter::tflite_micro_rows(relu);
  ASSERT_TRUE(rows.shown);
  EXPECT_EQ(rows.export_detail, "no rewrite lowers the arena, reference kernels on arm-none-eabi");

  ModelMaker two = two_peaks();
  two.m.subgraphs.push_back(two.m.subgraphs[0]);
  EXPECT_FALSE(exporter::tflite_micro_rows(two.m).shown);
  ModelMaker int4 = two_peaks();
  int4.g().tensors[6].type = tflite::TensorType::Int4;
  EXPECT_FALSE(exporter::tflite_micro_rows(int4.m).shown);
  EXPECT_FALSE(exporter::tflite_micro_rows_for_file("/nonexistent.tflite").shown);
}

}  // namespace
