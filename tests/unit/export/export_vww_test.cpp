// tigris export on the MLPerf Tiny models: the spec's own figures, the structure of the
// rewrite, and the banded tensors against the original ones (mini evaluator).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "export/banding/macs.h"
#include "export/command.h"
#include "export/tflite/reader.h"
#include "tests/unit/tflite/test_models.h"
#include "export/tflite/writer.h"
#include "tests/unit/export/mini_eval.h"

namespace {

using namespace tigris;
using exporter::ExportOptions;
using exporter::Refusal;

// A fresh directory for files a test writes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("tigris_export_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  size_t files() const {
    return static_cast<size_t>(
        std::distance(std::filesystem::directory_iterator(path), std::filesystem::directory_iterator()));
  }
};

#define REQUIRE_MODELS() \
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent"

TEST(ExportVww, SpecFiguresOnArm) {
  REQUIRE_MODELS();
  auto o = exporter::plan_export_file(test::tflite_path("vww_96_int8"));
  ASSERT_EQ(o.refusal, Refusal::None) << o.reason;
  const exporter::ExportPlan& p = o.plan;
  ASSERT_EQ(p.runs.size(), 1u);
  EXPECT_EQ(p.runs[0].first_op, 2u);
  EXPECT_EQ(p.runs[0].last_op, 3u);
  EXPECT_EQ(p.runs[0].bands, 4);
  EXPECT_EQ(p.operators_before, 31u);
  EXPECT_EQ(p.operators_after, 46u);
  EXPECT_EQ(p.before.head, 73728);  // 72.00 KiB
  EXPECT_EQ(p.after.head, 46080);   // 45.00 KiB: the input (27648) and conv 0's output (18432)
  EXPECT_EQ(exporter::format_signed_bytes(p.persistent_growth()), "+2.31 KiB");
  EXPECT_EQ(exporter::format_signed_bytes(p.total_change()), "-24.69 KiB");
  // Extra MACs: conv 2 (1x1, 8 -> 16 channels, 48 wide) computes 51 rows instead of 48
  // (bands read rows 0-12, 12-24, 24-36, 36-47): 3 x 48 x 8 x 16.
  EXPECT_EQ(p.macs_after - p.macs_before, 3 * 48 * 8 * 16);
  EXPECT_EQ(exporter::describe_plan(p),
            "operators 2-3 computed in 4 row bands, +0.25% MACs; 46 operators after export");
}

TEST(ExportVww, SpecFiguresOnLp64AndIlp32) {
  REQUIRE_MODELS();
  auto lp64 = exporter::plan_export_file(test::tflite_path("vww_96_int8"), ExportOptions{tflm::Target::Lp64, 1});
  ASSERT_EQ(lp64.refusal, Refusal::None);
  EXPECT_EQ(exporter::format_signed_bytes(lp64.plan.persistent_growth()), "+3.17 KiB");
  EXPECT_EQ(exporter::format_signed_bytes(lp64.plan.total_change()), "-23.83 KiB");
  EXPECT_EQ(lp64.plan.after.head, 46080);  // the head does not depend on the ABI
  auto ilp32 = exporter::plan_export_file(test::tflite_path("vww_96_int8"), ExportOptions{tflm::Target::Ilp32, 1});
  ASSERT_EQ(ilp32.refusal, Refusal::None);
  EXPECT_EQ(ilp32.plan.after.head, 46080);
}

TEST(ExportVww, BandStructure) {
  REQUIRE_MODELS();
  tflite::Model in = tflite::read_model_file(test::tflite_path("vww_96_int8"));
  auto o = exporter::plan_export(in);
  ASSERT_EQ(o.refusal, Refusal::None);
  const tflite::Model& m = o.model;
  const auto& g = m.subgraphs[0];
  std::vector<std::string> kinds;
  for (size_t i = 2; i < 19; ++i) kinds.push_back(tflite::operator_kind(m, g.operators[i]));
  std::vector<std::string> band = {"SLICE", "CONV_2D", "PAD", "DEPTHWISE_CONV_2D"};
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(kinds[static_cast<size_t>(4 * k + j)], band[static_cast<size_t>(j)]);
  EXPECT_EQ(kinds[16], "CONCATENATION");
  // Copies share the original weights and run with VALID padding.
  const auto& orig_conv = in.subgraphs[0].operators[2];
  const auto& orig_dw = in.subgraphs[0].operators[3];
  for (int k = 0; k < 4; ++k) {
    const auto& conv = g.operators[static_cast<size_t>(3 + 4 * k)];
    const auto& dw = g.operators[static_cast<size_t>(5 + 4 * k)];
    EXPECT_EQ(g.tensors[conv.inputs[1]].buffer, in.subgraphs[0].tensors[orig_conv.inputs[1]].buffer);
    EXPECT_EQ(g.tensors[dw.inputs[1]].buffer, in.subgraphs[0].tensors[orig_dw.inputs[1]].buffer);
    EXPECT_EQ(dw.options.get<tflite::DepthwiseConv2DOptions>()->padding, tflite::Padding::Valid);
    EXPECT_EQ(dw.options.get<tflite::DepthwiseConv2DOptions>()->stride_h, 2);
    // Each band's depthwise output holds 6 of the 24 rows.
    EXPECT_EQ(g.tensors[dw.outputs[0]].shape, (std::vector<int32_t>{1, 6, 24, 16}));
    // SLICE rows 12k, 13 rows (12 in the last band, padded by one row below).
    const auto& slice = g.operators[static_cast<size_t>(2 + 4 * k)];
    auto begin = tflite::tensor_data(m, g.tensors[slice.inputs[1]]);
    int32_t row;
    std::memcpy(&row, begin.data() + 4, 4);
    EXPECT_EQ(row, 12 * k);
    EXPECT_EQ(g.tensors[slice.outputs[0]].shape[1], k == 3 ? 12 : 13);
    const auto& pad = g.operators[static_cast<size_t>(4 + 4 * k)];
    EXPECT_EQ(g.tensors[pad.outputs[0]].shape, (std::vector<int32_t>{1, 13, 49, 16}));
  }
  EXPECT_EQ(g.tensors[g.operators[18].outputs[0]].name, in.subgraphs[0].tensors[61].name);
  EXPECT_EQ(g.operators[18].options.get<tflite::ConcatenationOptions>()->axis, 1);
  EXPECT_EQ(g.tensors.size(), 89u - 1 + 24);  // conv 2's output gone; 16 band tensors, 8 constants
  // New tensors (88 on): band tensors have their own empty buffer, scale and zero point
  // only, no shape_signature; constants have no name. The file's size depends on it.
  std::set<uint32_t> buffers;
  size_t band_tensors = 0, constants = 0;
  for (size_t i = 88; i < g.tensors.size(); ++i) {
    const tflite::Tensor& t = g.tensors[i];
    EXPECT_TRUE(buffers.insert(t.buffer).second) << "buffer " << t.buffer << " shared";
    EXPECT_FALSE(t.shape_signature.has_value());
    if (tflite::is_constant(m, t)) {
      ++constants;
      EXPECT_EQ(t.name, "");
      continue;
    }
    ++band_tensors;
    EXPECT_NE(t.buffer, 0u);
    EXPECT_NE(t.name.find("/band"), std::string::npos) << t.name;
    ASSERT_TRUE(t.quantization.has_value());
    EXPECT_TRUE(t.quantization->min.empty() && t.quantization->max.empty());
    EXPECT_EQ(t.quantization->scale.size(), 1u);
  }
  EXPECT_EQ(band_tensors, 16u);
  EXPECT_EQ(constants, 8u);
  EXPECT_EQ(m.buffers.size(), 91u - 1 + 24);
}

TEST(ExportVww, BandedTensorsEqualTheOriginal) {
  REQUIRE_MODELS();
  tflite::Model in = tflite::read_model_file(test::tflite_path("vww_96_int8"));
  for (int runs : {1, 3}) {
    auto o = exporter::plan_export(in, ExportOptions{tflm::Target::ArmNoneEabi, runs});
    ASSERT_EQ(o.refusal, Refusal::None);
    test::MiniEval a(in), b(o.model);
    a.random_inputs(7);
    b.set_inputs_from(a);
    a.run();
    b.run();
    // Every tensor the rewritten model still has (by name) holds the same values.
    size_t compared = 0;
    for (const auto& t : o.model.subgraphs[0].tensors) {
      int32_t ia = a.find(t.name), ib = b.find(t.name);
      if (ia < 0 || tflite::is_constant(in, in.subgraphs[0].tensors[ia]) || a.value(ia).empty()) continue;
      EXPECT_EQ(a.value(ia), b.value(ib)) << t.name;
      ++compared;
    }
    EXPECT_GE(compared, 20u);
  }
}

TEST(ExportVww, MoreRunsDoNotHelpVww) {
  REQUIRE_MODELS();
  // After operators 2-3 the head is operator 0's input and output (45.00 KiB); banding
  // operator 0 needs its output whole again for the CONCATENATION, so no second run pays.
  auto three = exporter::plan_export_file(test::tflite_path("vww_96_int8"), ExportOptions{tflm::Target::ArmNoneEabi, 3});
  ASSERT_EQ(three.refusal, Refusal::None);
  EXPECT_EQ(three.plan.runs.size(), 1u);
  EXPECT_EQ(three.plan.total_change(), -25280);
}

TEST(ExportCommand, WritesTheSpecReport) {
  REQUIRE_MODELS();
  TempDir dir;
  std::filesystem::copy_file(test::tflite_path("vww_96_int8"), dir.path / "vww_96_int8.tflite");
  exporter::ExportRequest req;
  req.model = (dir.path / "vww_96_int8.tflite").string();
  exporter::ExportResult r = exporter::run_export(req);
  ASSERT_EQ(r.exit_status, 0) << r.error;
  std::string expected_path = (dir.path / "vww_96_int8_export.tflite").string();
  EXPECT_EQ(r.written, expected_path);
  ASSERT_TRUE(std::filesystem::exists(expected_path));
  EXPECT_EQ(r.written_bytes, std::filesystem::file_size(expected_path));
  EXPECT_EQ(r.out, req.model +
                       "   31 operators\n"
                       "operators 2-3 computed in 4 row bands, +0.25% MACs; 46 operators after export\n"
                       "\n"
                       "TFLite Micro arena, reference kernels on arm-none-eabi\n"
                       "  head            45.00 KiB   72.00 KiB before\n"
                       "  persistent      +2.31 KiB\n"
                       "  total change   -24.69 KiB\n"
                       "\n"
                       "wrote " +
                       expected_path + "   328.78 KiB\n");
  // The spec's 328.78 KiB, to the byte: the input's 333288 bytes as the object API wrote
  // them, plus 15 operators, 8 unnamed int32 constants with their buffers and 16 band
  // tensors, each with its own empty buffer, scale and zero point only, no shape_signature.
  EXPECT_EQ(r.written_bytes, 336672u);
  // The written file reads back, is the planned model, and has the planned arena.
  tflite::Model back = tflite::read_model_file(expected_path);
  EXPECT_TRUE(back == r.outcome.model);
  EXPECT_EQ(tflm::compute_arena(back, tflm::Target::ArmNoneEabi).used(), r.outcome.plan.after.used());
  EXPECT_EQ(dir.files(), 2u);  // input and output, no temporary left
}

TEST(ExportCommand, OutputFlagAndTarget) {
  REQUIRE_MODELS();
  TempDir dir;
  exporter::ExportRequest req;
  req.model = test::tflite_path("vww_96_int8");
  req.output = (dir.path / "small.tflite").string();
  req.options.target = tflm::Target::Lp64;
  exporter::ExportResult r = exporter::run_export(req);
  ASSERT_EQ(r.exit_status, 0);
  EXPECT_TRUE(std::filesystem::exists(*req.output));
  EXPECT_NE(r.out.find("TFLite Micro arena, reference kernels on lp64\n"), std::string::npos);
  EXPECT_NE(r.out.find("  persistent      +3.17 KiB\n"), std::string::npos);
  EXPECT_NE(r.out.find("  total change   -23.83 KiB\n"), std::string::npos);
}

TEST(ExportCommand, KwsWritesNothing) {
  REQUIRE_MODELS();
  TempDir dir;
  std::filesystem::copy_file(test::tflite_path("kws_ref_model"), dir.path / "kws_ref_model.tflite");
  exporter::ExportRequest req;
  req.model = (dir.path / "kws_ref_model.tflite").string();
  exporter::ExportResult r = exporter::run_export(req);
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.out, req.model + "   13 operators\n");
  EXPECT_EQ(r.error, "no model written: no rewrite lowers the arena");
  EXPECT_EQ(dir.files(), 1u);
}

TEST(ExportModels, OtherMlperfModels) {
  REQUIRE_MODELS();
  for (const char* name : {"ad01_int8", "str_ww_ref_model", "vww_96_float", "kws_ref_model"}) {
    auto o = exporter::plan_export_file(test::tflite_path(name));
    EXPECT_EQ(o.refusal, Refusal::NoGain) << name << ": " << o.reason;
  }
  // The ResNets band their first residual stages (ADD with two banded inputs).
  for (const char* name : {"pretrainedResnet_quant", "pretrainedResnet_large_int8"}) {
    tflite::Model in = tflite::read_model_file(test::tflite_path(name));
    auto o = exporter::plan_export(in);
    ASSERT_EQ(o.refusal, Refusal::None) << name;
    EXPECT_LT(o.plan.total_change(), 0);
    test::MiniEval a(in), b(o.model);
    a.random_inputs(3);
    b.set_inputs_from(a);
    a.run();
    b.run();
    int32_t last = in.subgraphs[0].operators[o.plan.runs[0].last_op].outputs[0];
    const std::string& name_out = in.subgraphs[0].tensors[last].name;
    ASSERT_FALSE(a.value(last).empty());
    EXPECT_EQ(a.value(last), b.value(b.find(name_out))) << name;
  }
}

}  // namespace
