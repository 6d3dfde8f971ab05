// run: the host runtime through the binary. Values are derived by hand from the plans in
// test_plans.h; axis reordering is checked with a flatten, whose output lists the input in
// the plan's stored order.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"
#include "cli/test_plans.h"
#include "tools/tigris/arrays.h"

using namespace tigris::clitest;
using tigris::cli::Array;

namespace {

std::vector<uint8_t> float_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> floats(const Array& a) {
  std::vector<float> v(a.data.size() / 4);
  std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

// Declared (NCHW) 1x4x2x3 input: value c*100 + h*10 + w - 150.
std::vector<float> declared_input() {
  std::vector<float> v;
  for (int c = 0; c < 4; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w) v.push_back(static_cast<float>(c * 100 + h * 10 + w - 150));
  return v;
}

Array read_npy_file(const std::string& path) { return tigris::cli::read_npy(read_bytes(path), path); }

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_bytes(dir.file("relu.tgrs"), write_plan(relu_plan()));
    write_bytes(dir.file("flatten.tgrs"), write_plan(flatten_plan()));
    write_bytes(dir.file("add.tgrs"), write_plan(add_relu_plan()));
    write_bytes(dir.file("x.npy"), tigris::cli::write_npy(Array{1, {1, 4, 2, 3}, float_bytes(declared_input())}));
  }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  TempDir dir;
};

}  // namespace

TEST_F(RunTest, ReluInDeclaredOrder) {
  const CliResult r = run({"run", "relu.tgrs", "--input", "x.npy", "--output", "y.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Array y = read_npy_file(dir.file("y.npy"));
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 4, 2, 3}));
  const std::vector<float> x = declared_input();
  const std::vector<float> out = floats(y);
  ASSERT_EQ(out.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out[i], x[i] > 0 ? x[i] : 0.0f) << i;
  // The fast arena is exactly what the plan states, and the run reports its measured peak.
  EXPECT_NE(r.out.find("  fast arena peak   192 B   of 192 B (exactly what the plan requires)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("wrote y.npy   1x4x2x3 float32\n"), std::string::npos) << r.out;
}

TEST_F(RunTest, DeclaredOrderIsConvertedToTheStoredOrder) {
  // Stored NHWC element (h, w, c) is declared element (c, h, w); flatten lists stored order.
  const CliResult r = run({"run", "flatten.tgrs", "-i", "x.npy", "-o", "y.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<float> y = floats(read_npy_file(dir.file("y.npy")));
  ASSERT_EQ(y.size(), 24u);
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 3; ++w)
      for (int c = 0; c < 4; ++c) EXPECT_EQ(y[static_cast<size_t>((h * 3 + w) * 4 + c)], c * 100 + h * 10 + w - 150);
}

TEST_F(RunTest, StoredOrderPassesDataUnchanged) {
  std::vector<float> stored(24);
  for (size_t i = 0; i < 24; ++i) stored[i] = static_cast<float>(i);
  write_bytes(dir.file("xs.npy"), tigris::cli::write_npy(Array{1, {1, 2, 3, 4}, float_bytes(stored)}));
  const CliResult r = run({"run", "flatten.tgrs", "-i", "xs.npy", "-o", "y.npy", "--stored-order"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(floats(read_npy_file(dir.file("y.npy"))), stored);
  // The declared-order shape is refused under --stored-order, and the stored one without it.
  const CliResult wrong = run({"run", "flatten.tgrs", "-i", "x.npy", "-o", "z.npy", "--stored-order"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_EQ(wrong.err, "Error: x.npy: shape 1x4x2x3, input 'x' is 1x2x3x4 float32\n");
  const CliResult hint = run({"run", "flatten.tgrs", "-i", "xs.npy", "-o", "z.npy"});
  EXPECT_EQ(hint.exit_code, 1);
  EXPECT_EQ(hint.err,
            "Error: xs.npy: shape 1x2x3x4, input 'x' is 1x4x2x3 float32 (the model's declared axis order; "
            "--stored-order takes 1x2x3x4)\n");
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"add.tgrs", "flatten.tgrs", "relu.tgrs", "x.npy", "xs.npy", "y.npy"}));
}

TEST_F(RunTest, RawBinInAndOut) {
  write_bytes(dir.file("x.bin"), float_bytes(declared_input()));
  const CliResult r = run({"run", "relu.tgrs", "--input", "x.bin", "--output", "y.bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto y = read_bytes(dir.file("y.bin"));
  ASSERT_EQ(y.size(), 96u);
  std::vector<float> v(24);
  std::memcpy(v.data(), y.data(), 96);
  EXPECT_EQ(v[23], 162.0f);  // c=3, h=1, w=2: 300 + 10 + 2 - 150
  EXPECT_EQ(v[0], 0.0f);
  write_bytes(dir.file("short.bin"), std::vector<uint8_t>(95, 0));
  const CliResult bad = run({"run", "relu.tgrs", "--input", "short.bin", "--output", "z.bin"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "Error: short.bin: 95 bytes, input 'x' takes 96 (1x4x2x3 float32)\n");
}

TEST_F(RunTest, NamedInputsAndNpzOutputs) {
  write_bytes(dir.file("a.npy"), tigris::cli::write_npy(Array{1, {1, 2}, float_bytes({1.5f, -4.0f})}));
  write_bytes(dir.file("b.npy"), tigris::cli::write_npy(Array{1, {1, 2}, float_bytes({2.0f, 1.0f})}));
  const CliResult r = run({"run", "add.tgrs", "--input", "a=a.npy", "--input", "b=b.npy", "--output", "o.npz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto members = tigris::cli::read_npz(read_bytes(dir.file("o.npz")), "o.npz");
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "s");
  EXPECT_EQ(floats(members[0].array), (std::vector<float>{3.5f, -3.0f}));
  EXPECT_EQ(members[1].name, "r");
  EXPECT_EQ(floats(members[1].array), (std::vector<float>{3.5f, 0.0f}));
  EXPECT_NE(r.out.find("wrote o.npz   s 1x2 float32, r 1x2 float32\n"), std::string::npos) << r.out;

  // An archive of named members feeds every input at once.
  write_bytes(dir.file("ab.npz"), tigris::cli::write_npz({{"b", Array{1, {1, 2}, float_bytes({2.0f, 1.0f})}},
                                                          {"a", Array{1, {1, 2}, float_bytes({1.5f, -4.0f})}}}));
  const CliResult z = run({"run", "add.tgrs", "--input", "ab.npz", "--output", "o2.npz"});
  ASSERT_EQ(z.exit_code, 0) << z.err;
  EXPECT_EQ(read_bytes(dir.file("o2.npz")), read_bytes(dir.file("o.npz")));
}

TEST_F(RunTest, JsonReportsMemoryAndStats) {
  const CliResult r = run({"run", "relu.tgrs", "--input", "x.npy", "--output", "y.npy", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["memory"]["fast_capacity_bytes"], 192);
  EXPECT_EQ(j["memory"]["fast_required_bytes"], 192);
  EXPECT_LE(j["memory"]["fast_peak_bytes"].get<int>(), 192);
  EXPECT_GT(j["memory"]["fast_peak_bytes"].get<int>(), 0);
  EXPECT_TRUE(j["memory"].contains("slow_peak_bytes"));
  EXPECT_TRUE(j["memory"].contains("slow_capacity_bytes"));
  EXPECT_EQ(j["stats"]["stages_normal"], 1);
  EXPECT_EQ(j["tensors"][0]["shape"], nlohmann::json({1, 4, 2, 3}));
  EXPECT_EQ(j["runtime_version"], "0.13.0");
}

TEST_F(RunTest, FailuresLeaveNoOutput) {
  write_bytes(dir.file("y.npy"), {1, 2, 3});
  write_bytes(dir.file("x64.npy"), tigris::cli::write_npy(Array{11, {1, 4, 2, 3}, std::vector<uint8_t>(192, 0)}));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "relu.tgrs", "-i", "x.npy", "-o", "y.npy"},
       "Error: y.npy exists and is not a .npy array; not replaced\n"},
      {{"run", "relu.tgrs", "-i", "x64.npy", "-o", "out.npy"},
       "Error: x64.npy: float64 array, input 'x' is 1x4x2x3 float32\n"},
      {{"run", "relu.tgrs", "-i", "x.npy", "-o", "out.npy", "--fast", "100"},
       "Error: run failed: arena too small for the plan (fast arena 100 bytes, the plan requires 192; slow buffer "},
      {{"run", "add.tgrs", "-i", "x.npy", "-o", "out.npz"},
       "Error: multiple-input models require NAME=FILE for each input; its inputs are a, b\n"},
      {{"run", "add.tgrs", "-i", "a=x.npy", "-i", "a=x.npy", "-o", "out.npz"},
       "Error: x.npy: shape 1x4x2x3, input 'a' is 1x2 float32\n"},
      {{"run", "add.tgrs", "-i", "b=missing.npy", "-o", "out.npz"}, "Error: missing.npy: no such file\n"},
      {{"run", "add.tgrs", "-o", "out.npy"}, "Error: the model has 2 outputs; write them to an .npz file\n"},
      {{"run", "x.npy", "-i", "x.npy", "-o", "out.npy"},
       "Error: x.npy: not a TiGrIS plan; compile the model first (tigris compile)\n"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args[1] << " " << message;
    EXPECT_EQ(r.err.substr(0, message.size()), message);
  }
  EXPECT_EQ(read_bytes(dir.file("y.npy")), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"add.tgrs", "flatten.tgrs", "relu.tgrs", "x.npy", "x64.npy", "y.npy"}));
}

TEST_F(RunTest, UsageErrorsExitTwo) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"run", "relu.tgrs", "-i", "x.npy", "-o", "y.txt"},
                                             {"run", "relu.tgrs", "-i", "x.npy"},
                                             {"run", "relu.tgrs", "-i", "x.npy", "-o", "y.npy", "--fast", "12Q"},
                                             {"run", "relu.tgrs", "-i", "x.npy", "-o", "y.npy", "--bogus"}}) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("(see 'tigris run --help')"), std::string::npos) << r.err;
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"add.tgrs", "flatten.tgrs", "relu.tgrs", "x.npy"}));
}

TEST_F(RunTest, DeclaredFloatInterfaceOfAnInt8Plan) {
  // Quantization scale 0.5, zero point 1: q = clamp(round_half_away(x / 0.5) + 1);
  // ReLU clamps at the zero point; y = (q - 1) * 0.5.
  //   x = -1 -> q = -1 -> 1 -> 0;   0.4 -> 1 + 1 = 2 -> 0.5;   3 -> 7 -> 3;   100 -> 201 -> 127 -> 63
  write_bytes(dir.file("ri8.tgrs"), write_plan(relu_int8_plan()));
  write_bytes(dir.file("xi.npy"), tigris::cli::write_npy(Array{1, {1, 4}, float_bytes({-1.0f, 0.4f, 3.0f, 100.0f})}));
  const CliResult r = run({"run", "ri8.tgrs", "-i", "xi.npy", "-o", "yi.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(int8 kernels)"), std::string::npos) << r.out;
  EXPECT_EQ(floats(read_npy_file(dir.file("yi.npy"))), (std::vector<float>{0.0f, 0.5f, 3.0f, 63.0f}));
  const CliResult i = run({"inspect", "ri8.tgrs"});
  EXPECT_NE(i.out.find("  input    x   1x4 float32   (stored int8, as declared)\n"), std::string::npos) << i.out;
  EXPECT_NE(i.out.find("model relu_int8, 1 operator, 1 stage, 0 tiled"), std::string::npos) << i.out;
}
