// compile(): checks, schedule, plan bytes and the flash figures.
#include <lz4hc.h>

#include "compiler/api_internal.h"
#include "compiler/plan/emit.h"
#include "compiler/plan/plan_writer.h"

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
std::string precheck(const ModelSummary& s, const Budgets& b, const CompileOptions& o) {
  if (!s.unsupported_operators.empty()) return unsupported_message(s);
  if (!s.dtype_errors.empty()) return "cannot compile: " + s.dtype_errors.front();
  if (b.fast == 0) return "Fast-memory budget must be greater than zero";
  if (b.fast > kU32Max) return "Fast-memory budget exceeds the uint32 plan-format limit";
  if (s.unscheduled_peak_bytes > kU32Max) return "Peak activation memory exceeds the uint32 plan-format limit";
  if (b.slow && *b.slow == 0) return "Slow-memory budget must be greater than zero";
  if (o.compression == Compression::Lz4) return "LZ4 weight compression is not implemented yet";
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

CompileResult compile_model(const Model& model, const Budgets& budgets, const CompileOptions& options) {
  CompileResult result;
  const ModelSummary& s = model.summary();
  result.flash.budget_bytes = budgets.flash;
  result.error = precheck(s, budgets, options);
  if (!result.error.empty()) return result;

  auto [report, sch] = schedule_report(model.graph(), budgets);
  result.schedule = std::move(report);
  if (!result.schedule.fits()) {
    result.error = budget_failure(result.schedule);
    return result;
  }
  plan::EmitOptions eo;
  eo.model_name = s.name;
  eo.budget = static_cast<uint32_t>(budgets.fast);
  eo.unscheduled_peak = static_cast<uint32_t>(s.unscheduled_peak_bytes);
  eo.xip = options.xip;
  std::vector<uint8_t> bytes;
  try {
    plan::PlanDesc desc = plan::describe_plan(model.graph(), sch, eo);
    result.flash.weight_bytes = plan::weight_blob_bytes(desc.weights);
    uint64_t weight_elements = 0;
    for (const plan::WeightDesc& w : desc.weights) weight_elements += w.data.size() / 4;
    bytes = plan::write_plan(desc);
    result.flash.plan_bytes = bytes.size();
    result.flash.overhead_bytes = bytes.size() - result.flash.weight_bytes;
    result.flash.int8_plan_bytes_estimate = weight_elements + result.flash.overhead_bytes;
    result.flash.lz4_plan_bytes_estimate = lz4_weight_bytes(desc.weights) + result.flash.overhead_bytes;
  } catch (const std::exception& e) {
    result.error = std::string("no plan written: ") + e.what();
    return result;
  }
  if (budgets.flash && bytes.size() > *budgets.flash) {
    result.flash.plan_fits = false;
    result.error = "no plan written: the plan is " + bytes_str(bytes.size()) + ", the flash budget is " +
                   bytes_str(*budgets.flash);
    return result;
  }
  result.plan = std::move(bytes);
  return result;
}

}  // namespace tigris::compiler::detail
