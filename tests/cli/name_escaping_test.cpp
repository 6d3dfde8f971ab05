// Names read from files (tensors, nodes, operators, the model) may hold any bytes: reports
// and errors print the bytes that are not printable UTF-8 as \xNN (tools/tigris/terminal_text.h),
// so no control byte reaches the terminal and every line is valid UTF-8.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"
#include "cli/test_plans.h"
#include "tools/tigris/terminal_text.h"
#include "unit/compiler/onnx_builder.h"

using namespace tigris::clitest;
using tigris::cli::printable;

namespace {

// Valid UTF-8 with no control character but the newline.
bool is_clean(const std::string& text) { return printable(text, true) == text; }

const std::string kEsc = "in\x1b[31m\xff\x07";  // ESC, an invalid byte, BEL
const std::string kEscPrinted = "in\\x1B[31m\\xFF\\x07";

}  // namespace

TEST(Printable, EscapesControlBytesAndInvalidUtf8Only) {
  EXPECT_EQ(printable("conv_1/weights:0 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", false),
            "conv_1/weights:0 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");  // é € 😀 stay
  EXPECT_EQ(printable(kEsc, false), kEscPrinted);
  EXPECT_EQ(printable("a\nb\tc\r\x7f", false), "a\\x0Ab\\x09c\\x0D\\x7F");
  EXPECT_EQ(printable("a\nb", true), "a\nb");
  EXPECT_EQ(printable("\xc2\x9b", false), "\\xC2\\x9B");                             // C1 control (CSI)
  EXPECT_EQ(printable("\xc0\xaf\xed\xa0\x80", false), "\\xC0\\xAF\\xED\\xA0\\x80");  // overlong, surrogate
  EXPECT_EQ(printable("\xe2\x82", false), "\\xE2\\x82");                             // cut sequence
}

TEST(NameEscaping, ReportsAndErrorsOfAModelWithHostileNames) {
  TempDir dir;
  tigris::test::OnnxBuilder b(13, "graph\x1b]0;title\x07");
  b.input(kEsc, {1, 4});
  b.output("out\x9b\x01", {1, 4});
  b.node("Relu", {kEsc}, {"mid\xc0"}, "node\x1b");
  b.node("Relu", {"mid\xc0"}, {"out\x9b\x01"}, "n2\xfe");
  write_bytes(dir.file("names.onnx"), b.bytes());

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", "names.onnx"},
        {"inspect", "names.onnx", "-v"},
        {"analyze", "names.onnx", "-m", "1K", "-v"},
        {"compile", "names.onnx", "-m", "1K", "-o", "n.tgrs"},
        {"inspect", "n.tgrs", "-v"},
        {"compile", "names.onnx", "-m", "8", "-o", "n8.tgrs"},
        {"analyze", "names.onnx", "-m", "1K", "--input-shape", "nosuch\x1b:1x4"}}) {
    const CliResult r = run_cli(args, dir.path());
    EXPECT_LE(r.exit_code, 2) << args[0];
    EXPECT_TRUE(is_clean(r.out)) << args[0] << " " << args[1] << ":\n" << r.out;
    EXPECT_TRUE(is_clean(r.err)) << args[0] << " " << args[1] << ":\n" << r.err;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const CliResult i = run_cli({"inspect", "names.onnx"}, dir.path());
  EXPECT_NE(i.out.find(kEscPrinted), std::string::npos) << i.out;
  const CliResult p = run_cli({"inspect", "n.tgrs"}, dir.path());
  EXPECT_NE(p.out.find(kEscPrinted), std::string::npos) << p.out;

  // JSON stays parseable: control characters are JSON escapes, invalid UTF-8 becomes U+FFFD.
  for (const std::string file : {"names.onnx", "n.tgrs"}) {
    const CliResult j = run_cli({"inspect", file, "--json"}, dir.path());
    EXPECT_EQ(j.exit_code, 0) << j.err;
    EXPECT_TRUE(is_clean(j.out));
    EXPECT_TRUE(nlohmann::json::accept(j.out)) << j.out;
  }
  const CliResult a = run_cli({"analyze", "names.onnx", "-m", "1K", "--json"}, dir.path());
  EXPECT_TRUE(nlohmann::json::accept(a.out)) << a.out;
}

// An error that quotes a name from the file (an unknown operator here) stays one clean line.
TEST(NameEscaping, ErrorQuotingAnOperatorName) {
  TempDir dir;
  tigris::test::OnnxBuilder b;
  b.input("x", {1, 4});
  b.output("y", {1, 4});
  b.node("Fro\x1b[2J\xff", {"x"}, {"y"}, "n\x07");
  write_bytes(dir.file("op.onnx"), b.bytes());
  const CliResult r = run_cli({"compile", "op.onnx", "-m", "1K"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Error: op.onnx", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("Fro\\x1B[2J\\xFF"), std::string::npos) << r.err;
  EXPECT_TRUE(is_clean(r.err)) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
