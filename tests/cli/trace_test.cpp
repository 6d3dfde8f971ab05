// analyze --trace and --svg: the traced run's units and totals against the runtime's own
// counters (and against `tigris run` on the same plan), the flags' usage errors, the
// picture's file handling, and the mismatch check on crafted events.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"
#include "compiler/report/format.h"
#include "tools/tigris/trace_report.h"

using namespace tigris::clitest;

namespace {

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult w = run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()});
    ASSERT_EQ(w.exit_code, 0) << w.err;
  }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  TempDir dir;
};

const char* kAgree = "events; their bytes equal the runtime's own counters.";

// Rows of the unit table (lines that start with a stage number) and their tiles column summed.
int unit_rows(const std::string& text, int* tiles) {
  static const std::regex row(
      "^[0-9]+(-[0-9]+)? +(untiled|1D tile|2D tile|reduce by rows|reduce by element blocks|transpose|row bands|"
      "reshape bands|leading bands|channel bands|output-channel bands|input-channel bands|concat bands|"
      "concat blocks|control|chain [0-9]+) +([0-9]+) ");
  int n = 0;
  *tiles = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    std::smatch m;
    const std::string line = text.substr(start, end - start);
    if (std::regex_search(line, m, row)) {
      ++n;
      *tiles += std::stoi(m[3].str());
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return n;
}

}  // namespace

TEST_F(TraceTest, DemoUnitsAndTotalsEqualTheRunOfTheSamePlan) {
  // 32K: chains, a by-rows reduction and a normal stage.
  const CliResult t = run({"analyze", "demo.onnx", "-m", "32K+1M", "--trace"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("traced on runtime 0.13.0, host reference backend, zero input"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(kAgree), std::string::npos) << t.out;

  // The same plan run by `tigris run`: the same number of stages and the same bytes moved.
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "32K+1M", "-o", "demo.tgrs"}).exit_code, 0);
  const CliResult r = run({"run", "demo.tgrs", "--input", "demo_input.npy", "--output", "y.npy", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& stats = j.at("stats");
  int tiles = 0;
  const int rows = unit_rows(t.out, &tiles);
  EXPECT_GE(rows, 2) << t.out;
  EXPECT_LE(rows, stats.at("stages_normal").get<int>() + stats.at("stages_tiled").get<int>() +
                      stats.at("stages_chain").get<int>());
  EXPECT_EQ(tiles, stats.at("total_tiles").get<int>()) << t.out;
  EXPECT_GT(tiles, 0) << t.out;
  const std::string moved = "moved       " + tigris::report::format_bytes(stats.at("spills_bytes").get<uint64_t>()) +
                            " written, " + tigris::report::format_bytes(stats.at("loads_bytes").get<uint64_t>()) +
                            " read";
  EXPECT_NE(t.out.find(moved), std::string::npos) << t.out << "\nexpected: " << moved;
  EXPECT_NE(t.out.find("fast peak   " + tigris::report::format_bytes(j.at("memory").at("fast_peak_bytes")) + " of"),
            std::string::npos)
      << t.out;
}

// At 1K the demo's GlobalAveragePool reduces by blocks of input elements (BY_INPUT mode FLAT):
// the unit table names the mode, not only the executor's path, and its rows still add up.
TEST_F(TraceTest, UnitKindNamesTheBandMode) {
  const CliResult t = run({"analyze", "demo.onnx", "-m", "1K", "--trace"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find(" reduce by element blocks "), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find(" reduce by rows "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(kAgree), std::string::npos) << t.out;
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "1K", "-o", "demo.tgrs"}).exit_code, 0);
  const CliResult r = run({"run", "demo.tgrs", "--input", "demo_input.npy", "--output", "y.npy", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int tiles = 0;
  unit_rows(t.out, &tiles);
  EXPECT_EQ(tiles, nlohmann::json::parse(r.out).at("stats").at("total_tiles").get<int>()) << t.out;
  EXPECT_EQ(tigris::cli::trace_kind_name(TIGRIS_PATH_CHANNELS, 1, TIGRIS_CHANNELS_MODE_INPUT), "input-channel bands");
  EXPECT_EQ(tigris::cli::trace_kind_name(TIGRIS_PATH_CONCAT, 1, TIGRIS_CONCAT_MODE_BLOCKS), "concat blocks");
}

TEST_F(TraceTest, GivenInputAndVerboseEventLines) {
  const CliResult t = run({"analyze", "demo.onnx", "-m", "64K", "--trace", "-v", "--input", "demo_input.npy"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("given input"), std::string::npos);
  EXPECT_NE(t.out.find("      load    slow+"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("      spill   fast+"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("      op      "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("    tile 0 rows "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(kAgree), std::string::npos);
}

TEST_F(TraceTest, UsageErrors) {
  const CliResult both = run({"analyze", "demo.onnx", "-m", "192K", "--trace", "--json"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("two different outputs; choose one"), std::string::npos) << both.err;
  const CliResult input = run({"analyze", "demo.onnx", "-m", "192K", "--input", "demo_input.npy"});
  EXPECT_EQ(input.exit_code, 2);
  EXPECT_NE(input.err.find("--input is for --trace"), std::string::npos) << input.err;
  const CliResult budget = run({"analyze", "demo.onnx", "--trace"});
  EXPECT_EQ(budget.exit_code, 2);
  EXPECT_NE(budget.err.find("--trace runs the plan, so it needs a fast-memory budget (-m)"), std::string::npos)
      << budget.err;
  const CliResult svg = run({"analyze", "demo.onnx", "--svg", "t.svg"});
  EXPECT_EQ(svg.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.svg")));
}

TEST_F(TraceTest, NoPlanToTraceWhenTheBudgetIsTooSmall) {
  const CliResult t = run({"analyze", "demo.onnx", "-m", "512", "--trace"});
  EXPECT_EQ(t.exit_code, 1);
  EXPECT_EQ(t.err, "Error: no plan to trace: run analyze without --trace to see why\n");
}

TEST_F(TraceTest, SvgReplacesOnlyAnEarlierPicture) {
  const CliResult a = run({"analyze", "demo.onnx", "-m", "192K", "--svg", "t.svg"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("fits 192.00 KiB"), std::string::npos) << a.out;  // the analysis is printed too
  const std::string svg = read_text(dir.file("t.svg"));
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  size_t curves = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++curves;
  EXPECT_EQ(curves, 2u);  // before scheduling, measured
  EXPECT_NE(svg.find("budget 192.00 KiB"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#d62728\""), std::string::npos);  // the budget line

  // The output rule (docs/cli.md): an earlier picture is replaced, anything else is refused.
  const CliResult again = run({"analyze", "demo.onnx", "-m", "192K", "--svg", "t.svg"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(dir.file("t.svg")), svg);
  write_bytes(dir.file("u.svg"), {'u'});
  const CliResult other = run({"analyze", "demo.onnx", "-m", "192K", "--svg", "u.svg"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("u.svg exists and is not an SVG picture; not replaced"), std::string::npos) << other.err;
  EXPECT_EQ(read_text(dir.file("u.svg")), "u");
}

TEST(TraceSummary, SumsAreComparedWithTheCounters) {
  // A two-stage chain (head 0) that loads 100 bytes in two tiles and spills 40.
  tigris_file_header_t header{};
  header.num_stages = 2;
  tigris_stage_t stages[2] = {};
  stages[0].chain_len = 2;
  stages[1].chain_len = 2;
  tigris_plan_t plan{};
  plan.header = &header;
  plan.stages = stages;
  auto ev = [](uint8_t kind, uint32_t bytes, uint32_t fast_used) {
    tigris_trace_event_t e{};
    e.kind = kind;
    e.bytes = bytes;
    e.fast_used = fast_used;
    e.row0 = e.row1 = e.col0 = e.col1 = -1;
    e.tensor = e.op = 0xFFFF;
    return e;
  };
  tigris_trace_event_t begin = ev(TIGRIS_TRACE_STAGE_BEGIN, 0, 0);
  begin.path = TIGRIS_PATH_CHAIN;
  const std::vector<tigris_trace_event_t> events = {begin,
                                                    ev(TIGRIS_TRACE_TILE_BEGIN, 0, 0),
                                                    ev(TIGRIS_TRACE_LOAD, 60, 64),
                                                    ev(TIGRIS_TRACE_TILE_BEGIN, 0, 64),
                                                    ev(TIGRIS_TRACE_LOAD, 40, 128),
                                                    ev(TIGRIS_TRACE_SPILL, 40, 96),
                                                    ev(TIGRIS_TRACE_STAGE_END, 0, 0)};
  tigris_exec_stats_t stats{};
  stats.loads_bytes = 100;
  stats.spills_bytes = 40;
  stats.total_tiles = 2;
  const tigris::cli::TraceSummary ok = tigris::cli::summarize_trace(plan, events, stats, 128);
  EXPECT_TRUE(ok.mismatches.empty());
  ASSERT_EQ(ok.units.size(), 1u);
  EXPECT_EQ(ok.units[0].stages, 2);
  EXPECT_EQ(ok.units[0].tiles, 2u);
  EXPECT_EQ(ok.units[0].fast_peak, 128u);
  EXPECT_EQ(tigris::cli::trace_kind_name(ok.units[0].path, ok.units[0].stages), "chain 2");

  stats.loads_bytes = 90;
  const tigris::cli::TraceSummary bad = tigris::cli::summarize_trace(plan, events, stats, 200);
  ASSERT_EQ(bad.mismatches.size(), 2u);
  EXPECT_EQ(bad.mismatches[0], "mismatch: bytes loaded: events 100, runtime counter 90");
  EXPECT_EQ(bad.mismatches[1], "mismatch: fast peak: events 128, runtime counter 200");
}

// Every shared ONNX model that compiles: its traced run agrees with the runtime's counters,
// at a generous budget and at 256K where the scheduler finds a plan.
TEST(TraceModels, EventSumsEqualTheCountersOnEveryModel) {
#if TIGRIS_HAVE_MODELS
  const std::filesystem::path onnx = std::filesystem::path(TIGRIS_MODELS_DIR) / "onnx";
  int traced = 0;
  for (const auto& entry : std::filesystem::directory_iterator(onnx)) {
    if (entry.path().extension() != ".onnx") continue;
    for (const char* budget : {"16M", "256K"}) {
      const CliResult t = run_cli({"analyze", entry.path().string(), "-m", budget, "--trace"});
      if (t.exit_code == 1 && t.err.find("no plan to trace") != std::string::npos) {
        std::printf("  %s at %s: no plan (not traced)\n", entry.path().filename().c_str(), budget);
        continue;
      }
      EXPECT_EQ(t.exit_code, 0) << entry.path() << " at " << budget << "\n" << t.out << t.err;
      EXPECT_NE(t.out.find(kAgree), std::string::npos) << entry.path() << " at " << budget << "\n" << t.out;
      ++traced;
    }
  }
  EXPECT_GE(traced, 8);  // every float model at the generous budget
#else
  GTEST_SKIP() << "models folder absent";
#endif
}
