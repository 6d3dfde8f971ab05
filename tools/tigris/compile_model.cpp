#include "tools/tigris/compile_model.h"

#include "compiler/report/analysis_build.h"
#include "tigris_loader.h"

namespace tigris::cli {
namespace {

// The emitted plan goes through the runtime loader before anyone may write it: a refusal,
// or a warning when it needs a runtime built with larger limits.
void check_loads(CompiledModel& c) {
  const std::vector<uint8_t>& plan = c.result.plan;
  tigris_plan_t loaded{};
  tigris_plan_limits_t need{};
  const tigris_error_t err = tigris_plan_load_ex(plan.data(), static_cast<uint32_t>(plan.size()), &loaded, &need);
  if (err == TIGRIS_OK) return;
  if (err != TIGRIS_ERR_PLAN_LIMITS) {
    c.refusal = std::string("the runtime loader refuses the plan: ") + tigris_error_str(err);
    return;
  }
  tigris_plan_limits_t have{};
  tigris_build_limits(&have);
  if (need.tensors > have.tensors) {
    c.limits_warning = "the plan has " + std::to_string(need.tensors) +
                       " tensors, more than the runtime's default TIGRIS_MAX_TENSORS (" + std::to_string(have.tensors) +
                       "); build the runtime with -DTIGRIS_MAX_TENSORS=" + std::to_string(need.tensors);
  } else {
    c.limits_warning = "the plan exceeds the runtime's default executor limits; inspect it for the flags";
  }
}

}  // namespace

CompiledModel compile_model(const std::string& file, const compiler::Model& model, const compiler::Budgets& budgets,
                            const compiler::CompileOptions& options) {
  const compiler::ModelSummary& summary = model.summary();
  CompiledModel c;
  c.result = compiler::compile(model, budgets, options);
  c.report = report::build_analysis(file, summary, budgets, summary.supported() ? &c.result.schedule : nullptr,
                                    &c.result.flash);
  const std::string prefix = "no plan written: ";
  if (!summary.supported()) {
    // The summary lists them; the reason stays one short line.
    c.refusal =
        summary.unsupported_operators.empty()
            ? "cannot compile: " + summary.dtype_errors.front()
            : "cannot compile: " + std::to_string(summary.unsupported_operators.size()) +
                  (summary.unsupported_operators.size() == 1 ? " unsupported operator" : " unsupported operators");
  } else if (!c.result.ok()) {
    c.refusal = c.result.error.empty() ? "the compiler gave no reason" : c.result.error;
    if (c.refusal.rfind(prefix, 0) == 0) c.refusal = c.refusal.substr(prefix.size());
  } else if (c.report.fast.verdict != report::Verdict::kFits) {
    c.refusal = "the scheduled peak exceeds the fast budget";
  } else {
    check_loads(c);
  }
  return c;
}

}  // namespace tigris::cli
