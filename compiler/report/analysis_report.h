// `tigris analyze` and `tigris compile`: will a model fit a budget, and if not, why.
// The report is plain data (built from the compiler's results by analysis_build.cpp),
// rendered as text (shared by analyze and compile) or as the versioned JSON of analyze.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tigris::report {

inline constexpr int kAnalysisVersion = 1;

struct ReportTensor {
  std::string name;
  std::vector<int64_t> shape;  // the caller's (model's declared) axis order
  std::string dtype;
  uint64_t bytes = 0;
};

struct ReportUnsupported {
  std::string type, name, reason;
};

struct AnalysisModel {
  std::string file;  // as given on the command line
  std::string name;
  std::string format;  // onnx | tflite
  std::string dtype;   // int8 | float32 | mixed
  uint32_t operators = 0;         // after normalization: what the plan runs
  uint32_t source_operators = 0;  // as the file writes them (inspect's count)
  uint32_t tensors = 0, activations = 0, subgraphs = 0;
  uint64_t unscheduled_peak_bytes = 0;
  uint64_t weight_bytes = 0;
  ReportTensor largest_tensor;
  std::vector<ReportTensor> inputs, outputs;
  std::vector<ReportTensor> state;  // variables kept between runs
  std::vector<ReportUnsupported> unsupported_operators;
  std::vector<std::string> dtype_errors;
  bool supported() const { return unsupported_operators.empty() && dtype_errors.empty(); }
};

struct ReportBlockingStage {
  uint32_t stage = 0;
  uint64_t required_bytes = 0;
  std::string reason;
};

enum class Verdict { kCannotCompile, kNoBudget, kDoesNotFit, kFits };

struct AnalysisFast {
  std::optional<uint64_t> budget_bytes;
  Verdict verdict = Verdict::kNoBudget;
  uint64_t scheduled_peak_bytes = 0;
  uint32_t stages = 0, tiled = 0;
  uint32_t stages_needing_tiling = 0, stages_tileable = 0, stages_untileable = 0;
  std::vector<std::string> untileable_operators;
  uint64_t minimum_for_partition_bytes = 0;
  std::vector<ReportBlockingStage> blocking_stages;  // largest first
  std::vector<std::string> infeasible;
};

struct AnalysisSlow {
  std::optional<uint64_t> budget_bytes;
  uint64_t peak_bytes = 0;
  uint64_t spill_bytes = 0, reload_bytes = 0;
  bool fits = true;
  std::vector<uint32_t> overflow_stages;
};

struct AnalysisFlash {
  std::optional<uint64_t> budget_bytes;
  uint64_t weight_bytes = 0;
  std::optional<uint64_t> plan_bytes;  // none when no plan is possible at this budget
  uint64_t overhead_bytes = 0;
  bool plan_fits = true;
  std::optional<uint64_t> int8_plan_bytes;  // estimate, float32 models only
  std::optional<uint64_t> lz4_plan_bytes;   // estimate
};

struct BudgetTried {
  uint64_t budget_bytes = 0;
  bool fits = false;
  uint32_t stages = 0, tiled = 0;
};

struct AnalysisStage {
  uint32_t stage = 0;
  uint32_t first_op = 0, last_op = 0, operators = 0;
  uint64_t peak_bytes = 0;
  std::vector<std::string> inputs, outputs;
  uint64_t in_bytes = 0, out_bytes = 0;  // reloaded / spilled
  bool needs_tiling = false;
  std::string tiling = "untiled";  // rendered cell
  struct Tiles {
    uint32_t axis = 0, tile = 0, count = 0, halo = 0;
    uint64_t tiled_peak_bytes = 0;
  };
  std::optional<Tiles> tiles;
  std::string why;  // the scheduler's decision (analyze -v, JSON "decision")
  uint32_t graph = 0;  // the plan's graph holding it (0 main; JSON "graph" only when not 0)
};

// TFLite models: TensorFlow Lite Micro's own figures (export/analyze_rows.h), filled by
// `tigris analyze` (the compiler library does not run the export search).
struct AnalysisTflm {
  uint64_t tensor_arena_bytes = 0;             // planner head plus kernel scratch
  std::string arena_detail;                    // the row's text: what the head holds and leaves out
  std::vector<std::string> arena_excludes;     // JSON "excludes"
  bool export_written = false;                 // a rewrite lowers the arena
  std::optional<int64_t> export_change_bytes;  // total change when written
  std::string export_value, export_detail;     // the rendered row ("-24.69 KiB" / "none", and why)
};

struct AnalysisReport {
  AnalysisModel model;
  AnalysisFast fast;
  AnalysisSlow slow;
  AnalysisFlash flash;
  std::vector<BudgetTried> budgets_tried;
  std::vector<AnalysisStage> stages;
  std::optional<AnalysisTflm> tflite_micro;  // TFLite models, analyze only
};

std::string verdict_name(Verdict v);  // fits | does_not_fit | no_budget | cannot_compile

// Header, interface rows, verdict line(s), memory and flash sections; with `verbose`
// the per-stage table. `sweep` adds the budgets-tried rows (analyze; compile omits them).
std::string render_text(const AnalysisReport& report, bool verbose, bool sweep);
nlohmann::ordered_json to_json(const AnalysisReport& report);

}  // namespace tigris::report
