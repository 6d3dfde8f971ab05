// compile(): checks, schedule, plan bytes and the flash figures.
#include <lz4hc.h>

#include <algorithm>
#include <optional>

#include "compiler/api_internal.h"
#include "compiler/passes/weight_split.h"
#include "compiler/plan/emit.h"
#include "compiler/plan/plan_writer.h"
#include "compiler/plan/weight_blocks.h"
#include "compiler/schedule/usage.h"
#include "tigris_config.h"
#include "tigris_loader.h"

namespace tigris::compiler::detail {

namespace {

constexpr uint64_t kU32Max = 0xFFFFFFFFull;

std::string unsupported_message(const ModelSummary& s) {
  size_t n = s.unsupported_operators.size();
  std::string msg = "cannot compile: " + std::to_string(n) + " unsupported operator" + (n == 1 ? "" : "s") + ": ";
  for (size_t i = 0; i < n; ++i) {
    const UnsupportedOperator& u = s.unsupported_operators[i];
    msg += (i ? "; " : "") + u.name + " (" + u.type + ": " + u.reason + ")";
  }
  return msg;
}

// The reason no plan can be written before scheduling, or "".
std::string precheck(const ModelSummary& s, const Budgets& b) {
  if (!s.unsupported_operators.empty()) return unsupported_message(s);
  if (!s.dtype_errors.empty()) return "cannot compile: " + s.dtype_errors.front();
  if (b.fast == 0) return "Fast-memory budget must be greater than zero";
  if (b.fast > kU32Max) return "Fast-memory budget exceeds the uint32 plan-format limit";
  if (s.unscheduled_peak_bytes > kU32Max) return "Peak activation memory exceeds the uint32 plan-format limit";
  if (b.slow && *b.slow == 0) return "Slow-memory budget must be greater than zero";
  return "";
}

std::string budget_failure(const ScheduleResult& r) {
  if (!r.fast.fits) {
    size_t n = r.fast.blocking_stages.size();
    const BlockingStage& first = r.fast.blocking_stages.front();
    return "no plan written: " + std::to_string(n) + " stage" + (n == 1 ? "" : "s") + " exceed" + (n == 1 ? "s" : "") +
           " the fast budget of " + bytes_str(r.fast.budget_bytes) + "; stage " + std::to_string(first.stage) +
           " needs " + bytes_str(first.required_bytes) + ": " + first.reason;
  }
  return "no plan written: slow memory " + bytes_str(r.slow.peak_bytes) + " needed, " +
         bytes_str(r.slow.budget_bytes.value_or(0)) + " given";
}

// Bytes of the 16-aligned weight blob once LZ4-HC compressed (the `-c lz4` estimate).
uint64_t lz4_weight_bytes(const std::vector<plan::WeightDesc>& weights) {
  std::vector<char> blob;
  for (const plan::WeightDesc& w : weights) {
    blob.insert(blob.end(), w.data.begin(), w.data.end());
    blob.resize((blob.size() + 15) / 16 * 16, 0);
  }
  if (blob.empty() || blob.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return blob.size();
  std::vector<char> out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(blob.size()))));
  int n = LZ4_compress_HC(blob.data(), out.data(), static_cast<int>(blob.size()), static_cast<int>(out.size()),
                          LZ4HC_CLEVEL_DEFAULT);
  return n > 0 ? static_cast<uint64_t>(n) : blob.size();
}

}  // namespace

namespace {

constexpr int kMaxReserveAttempts = 64;
constexpr uint64_t kAlign = TIGRIS_PLAN_MAX_ALIGN;  // the runtime's reservation granule

// Fast bytes the runtime reserves for the plan's decompressed weight blocks.
uint64_t decompression_overhead(const std::vector<uint8_t>& bytes) {
  tigris_plan_t plan;
  if (tigris_plan_load(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan) != TIGRIS_OK) return 0;
  return tigris_weight_decompression_overhead(&plan);
}

void fill_flash(const plan::PlanDesc& desc, const std::vector<plan::WeightDesc>& weights, size_t plan_bytes,
                FlashReport& f) {
  f.weight_bytes = desc.compression == TIGRIS_COMPRESSION_NONE ? plan::weight_blob_bytes(weights) : 0;
  uint64_t weight_elements = 0;
  for (const plan::WeightDesc& w : weights) weight_elements += w.data.size() / 4;
  f.plan_bytes = plan_bytes;
  f.overhead_bytes = plan_bytes - std::min<uint64_t>(plan_bytes, f.weight_bytes);
  f.int8_plan_bytes_estimate = weight_elements + f.overhead_bytes;
  f.lz4_plan_bytes_estimate = lz4_weight_bytes(weights) + f.overhead_bytes;
}

// One compile of `g` (the model's graph, or its LZ4 split copy). -c lz4: decompressed
// weights take fast memory next to the activations (the runtime holds room for the largest
// block), and the stage boundaries decide the blocks. Start from the smallest possible
// reserve (the largest op's weights), keep every stage's weights within it, and re-plan with
// the blocks' real size until they fit the reserve.
// `dry`: stop once the reserve holds, with the plan's blocks stored raw (no LZ4, no flash
// figures): enough to compare candidates (the reserve only depends on uncompressed sizes).
CompileResult compile_graph(const ir::Graph& g, const ModelSummary& s, const Budgets& budgets,
                            const CompileOptions& options, bool dry = false) {
  CompileResult result;
  result.flash.budget_bytes = budgets.flash;
  const bool lz4 = options.compression == Compression::Lz4;
  uint64_t reserve = lz4 ? (schedule::largest_op_weights(g) + kAlign - 1) / kAlign * kAlign : 0;
  std::vector<uint8_t> bytes;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxReserveAttempts) {
      result.error = "no plan written: the weight reservation did not converge";
      return result;
    }
    if (reserve >= budgets.fast) {
      result.error = "no plan written: decompressed weights need " + bytes_str(reserve) +
                     " of fast memory, the budget is " + bytes_str(budgets.fast);
      return result;
    }
    Budgets act = budgets;
    act.fast = budgets.fast - reserve;
    schedule::PartitionOptions po;
    po.greedy = options.greedy_schedule;
    po.max_stage_weight_bytes = reserve;
    auto [report, sch] = schedule_report(g, act, po);
    result.schedule = std::move(report);
    result.schedule.fast.budget_bytes = budgets.fast;
    result.schedule.fast.weight_reserve_bytes = reserve;
    if (!result.schedule.fits()) {
      result.error = budget_failure(result.schedule);
      if (reserve > 0) result.error += " (" + bytes_str(reserve) + " of the budget holds decompressed weights)";
      return result;
    }
    plan::EmitOptions eo;
    eo.model_name = s.name;
    eo.budget = static_cast<uint32_t>(budgets.fast);
    eo.unscheduled_peak = static_cast<uint32_t>(s.unscheduled_peak_bytes);
    eo.xip = options.xip;
    try {
      plan::PlanDesc desc = plan::describe_plan(g, sch, eo);
      const std::vector<plan::WeightDesc> weights = desc.weights;
      if (lz4) plan::group_weights_per_stage(desc);
      const uint16_t compression = desc.compression;
      desc.compression = TIGRIS_COMPRESSION_NONE;  // raw blocks: the same uncompressed sizes, fast
      if (lz4) bytes = plan::write_plan(desc);
      const bool done = !lz4 || decompression_overhead(bytes) <= reserve;
      if (done && dry) break;
      if (done) {
        desc.compression = compression;
        bytes = plan::write_plan(desc);
        fill_flash(desc, weights, bytes.size(), result.flash);
        break;
      }
    } catch (const std::exception& e) {
      result.error = std::string("no plan written: ") + e.what();
      return result;
    }
    reserve = decompression_overhead(bytes);
  }
  if (!dry && budgets.flash && bytes.size() > *budgets.flash) {
    result.flash.plan_fits = false;
    result.error = "no plan written: the plan is " + bytes_str(bytes.size()) + ", the flash budget is " +
                   bytes_str(*budgets.flash);
    return result;
  }
  result.plan = std::move(bytes);
  return result;
}

uint64_t bytes_moved(const CompileResult& r) {
  return r.schedule.fast.load_traffic_bytes + r.schedule.fast.spill_traffic_bytes;
}

// -c lz4: besides the graph as it is, try weight reserves of 8, 6, 4, 3, 2 and 1 sixteenths of the budget, ops
// wider than the reserve split over output channels (passes/weight_split.h); keep the
// working plan that moves the fewest bytes (the earliest on a tie). When none works, the
// error of the largest reserve tried that split something (else the unsplit graph's).
CompileResult compile_lz4(const ir::Graph& g, const ModelSummary& s, const Budgets& budgets,
                          const CompileOptions& options) {
  CompileResult best = compile_graph(g, s, budgets, options, true);
  std::optional<ir::Graph> best_graph;
  std::optional<CompileResult> failed;
  for (uint64_t sixteenths : {8, 6, 4, 3, 2, 1}) {
    const uint64_t reserve = budgets.fast / 16 * sixteenths / kAlign * kAlign;
    ir::Graph split = g;
    if (reserve == 0 || passes::split_wide_weights(split, reserve) == 0) continue;
    CompileResult r = compile_graph(split, s, budgets, options, true);
    if (!r.ok()) {
      if (!failed) failed = std::move(r);
      continue;
    }
    if (best.ok() && bytes_moved(r) >= bytes_moved(best)) continue;
    best = std::move(r);
    best_graph = std::move(split);
  }
  if (!best.ok() && failed) return std::move(*failed);
  if (!best.ok()) return best;
  return compile_graph(best_graph ? *best_graph : g, s, budgets, options);
}

}  // namespace

CompileResult compile_model(const Model& model, const Budgets& budgets, const CompileOptions& options) {
  const ModelSummary& s = model.summary();
  CompileResult result;
  result.flash.budget_bytes = budgets.flash;
  result.error = precheck(s, budgets);
  if (!result.error.empty()) return result;
  if (options.compression == Compression::Lz4) return compile_lz4(model.graph(), s, budgets, options);
  return compile_graph(model.graph(), s, budgets, options);
}

}  // namespace tigris::compiler::detail
