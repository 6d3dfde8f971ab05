// The engine of the generated C: the same text in every format and for every backend, with
// the backend's preparation and dispatcher filled in.
#include "tools/tigris/codegen_source.h"

namespace tigris::cli {
namespace {

using Vars = std::map<std::string, std::string>;

// One assertion per runtime table limit: the plan's needs against this build's TIGRIS_MAX_*.
std::string limit_assertions(const CodegenPlan& plan, const std::string& p) {
  const std::pair<const char*, uint32_t> limits[] = {
      {"TIGRIS_MAX_TENSORS", plan.required.tensors},
      {"TIGRIS_MAX_STAGE_INPUTS", plan.required.stage_inputs},
      {"TIGRIS_MAX_STAGE_OUTPUTS", plan.required.stage_outputs},
      {"TIGRIS_MAX_CHAIN_STAGES", plan.required.chain_stages},
      {"TIGRIS_MAX_SPATIAL_OPS_PER_STAGE", plan.required.spatial_ops_per_stage},
      {"TIGRIS_MAX_SUBGRAPHS", plan.subgraphs},
      {"TIGRIS_MAX_SUBGRAPH_DEPTH", plan.subgraph_depth},
  };
  std::string out =
      "/* The runtime must be built with table limits this plan fits (tigris_plan_load_ex reports\n"
      " * them; TIGRIS_MAX_* of tigris_config.h, the same in every translation unit). */\n";
  for (const auto& [macro, need] : limits) {
    out += "TIGRIS_STATIC_ASSERT(" + std::string(macro) + " >= " + std::to_string(need) + ", " + p + "_needs_" + macro +
           "_" + std::to_string(need) + ");\n";
  }
  return out;
}

std::string backend_includes(const CodegenPlan& plan, Backend backend) {
  if (!plan.int8) return "#include \"tigris_kernels.h\"\n";
  switch (backend) {
  case Backend::kCmsisNn:
    return "#include \"tigris_kernels_cmsis_nn.h\"\n\n#ifndef TIGRIS_HAS_CMSIS_NN\n"
           "#error \"build the runtime and this file with CMSIS-NN (-DTIGRIS_HAS_CMSIS_NN)\"\n#endif\n";
  case Backend::kEspNn:
    return "#include \"tigris_kernels_esp_nn.h\"\n\n#ifndef TIGRIS_HAS_ESP_NN\n"
           "#error \"build the runtime and this file with ESP-NN (-DTIGRIS_HAS_ESP_NN)\"\n#endif\n";
  case Backend::kReference: break;
  }
  return "#include \"tigris_kernels_s8.h\"\n";
}

// `if (a || b)` over every interface size: the plan's own figures against the generated ones.
std::string iface_check(const CodegenPlan& plan, const std::string& P) {
  std::vector<std::string> terms;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    terms.push_back("tigris_iface_bytes(plan, plan->model_inputs[" + std::to_string(i) + "]) != " + P + "_INPUT_" +
                    std::to_string(i) + "_BYTES");
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    terms.push_back("tigris_iface_bytes(plan, plan->model_outputs[" + std::to_string(i) + "]) != " + P + "_OUTPUT_" +
                    std::to_string(i) + "_BYTES");
  }
  if (terms.empty()) return "";
  std::string cond;
  for (size_t i = 0; i < terms.size(); ++i) cond += (i ? " ||\n        " : "") + terms[i];
  return "    if (" + cond +
         ") {\n        return $p$_fail($P$_ERR_PLAN, \"the plan's interface differs from the one "
         "this code was generated for\");\n    }\n";
}

std::string run_steps(const CodegenPlan& plan, const std::string& P) {
  std::string out;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    out +=
        "    if (rc == $P$_OK) rc = $p$_write_input(" + k + ", inputs[" + k + "], " + P + "_INPUT_" + k + "_BYTES);\n";
  }
  out += "    if (rc == $P$_OK) rc = $p$_execute();\n";
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    const std::string k = std::to_string(i);
    out += "    if (rc == $P$_OK) rc = $p$_read_output(" + k + ", outputs[" + k + "], " + P + "_OUTPUT_" + k +
           "_BYTES);\n";
  }
  return out;
}

const char* kEngine = R"C(
$includes$
$assertions$
/* Executor working storage: tigris_executor_workspace_required() gave $workspace$ bytes on the
 * 64-bit host that generated this file, at least what a 32-bit target needs; init checks the
 * target's own figure. */
#define $P$_WORKSPACE_BYTES $workspace$u
$state_macro$
static tigris_plan_t $p$_plan_;
static tigris_mem_t $p$_mem_;
static tigris_exec_stats_t $p$_stats_;
static void *$p$_tensor_ptrs_[$P$_NUM_TENSORS];
static unsigned char $p$_workspace_[$P$_WORKSPACE_BYTES];
$state_buffer$static unsigned char *$p$_fast_;
static unsigned char *$p$_slow_;
static uint32_t $p$_fast_size_;
static uint32_t $p$_slow_size_;
static const char *$p$_error_ = "not initialized";

static int $p$_fail(int code, const char *why)
{
    $p$_error_ = why;
    return code;
}

/* The plan matches what this code was generated for: tables, interface, working storage. */
static int $p$_check_plan(const tigris_plan_t *plan)
{
    if (plan->header->num_tensors != $P$_NUM_TENSORS || plan->header->num_model_inputs != $P$_NUM_INPUTS ||
        plan->header->num_model_outputs != $P$_NUM_OUTPUTS) {
        return $p$_fail($P$_ERR_PLAN, "not the plan this code was generated for");
    }
$iface_check$    if (tigris_executor_workspace_required(plan) == 0 ||
        tigris_executor_workspace_required(plan) > sizeof $p$_workspace_) {
        return $p$_fail($P$_ERR_WORKSPACE, "the executor needs more working storage than was generated");
    }
$state_check$    return $P$_OK;
}

$api$int $p$_init(const uint8_t *plan_data, uint32_t plan_len, void *fast_arena, uint32_t fast_size,
             void *slow_arena, uint32_t slow_size)
{
    tigris_plan_limits_t needs;
    int rc;
    tigris_error_t err = tigris_plan_load_ex(plan_data, plan_len, &$p$_plan_, &needs);
    $p$_fast_ = NULL;
    if (err != TIGRIS_OK) return $p$_fail($P$_ERR_PLAN, tigris_error_str(err));
    rc = $p$_check_plan(&$p$_plan_);
    if (rc != $P$_OK) return rc;
    if (fast_arena == NULL || (uintptr_t)fast_arena % TIGRIS_TENSOR_ALIGN != 0 ||
        fast_size < $fast_required$) {
        return $p$_fail($P$_ERR_ARENA, "the fast arena is misaligned or smaller than the plan requires");
    }
    if (slow_size != 0 && (slow_arena == NULL || (uintptr_t)slow_arena % TIGRIS_TENSOR_ALIGN != 0)) {
        return $p$_fail($P$_ERR_ARENA, "the slow arena is misaligned");
    }
$state_init$    $p$_fast_ = (unsigned char *)fast_arena;
    $p$_fast_size_ = fast_size;
    $p$_slow_ = (unsigned char *)slow_arena;
    $p$_slow_size_ = slow_size;
$init_backend$    $p$_error_ = "";
    return $P$_OK;
}

static int $p$_write_input(uint8_t k, const void *data, uint32_t bytes)
{
    tigris_error_t err = tigris_input_write(&$p$_plan_, &$p$_mem_, $p$_plan_.model_inputs[k], data, bytes);
    return err == TIGRIS_OK ? $P$_OK : $p$_fail($P$_ERR_INPUT, tigris_error_str(err));
}

static int $p$_read_output(uint8_t k, void *data, uint32_t bytes)
{
    tigris_error_t err = tigris_output_read(&$p$_plan_, &$p$_mem_, $p$_plan_.model_outputs[k], data, bytes);
    return err == TIGRIS_OK ? $P$_OK : $p$_fail($P$_ERR_OUTPUT, tigris_error_str(err));
}

static int $p$_execute(void)
{
    tigris_exec_error_t err = $run_call$;
    return err == TIGRIS_EXEC_OK ? $P$_OK : $p$_fail($P$_ERR_RUN, tigris_exec_error_str(err));
}

$api$int $p$_run(const void *const inputs[], void *const outputs[])
{
    int rc = $P$_OK;
    (void)inputs;
    (void)outputs;
    if ($p$_fast_ == NULL) return $p$_fail($P$_ERR_STATE, "not initialized");
    /* Every run starts from empty arenas. */
    if (tigris_mem_init(&$p$_mem_, $p$_tensor_ptrs_, $P$_NUM_TENSORS, $p$_fast_, $p$_fast_size_, $p$_slow_,
                        $p$_slow_size_) != TIGRIS_MEM_OK) {
        return $p$_fail($P$_ERR_ARENA, "cannot set up the arenas");
    }
$run_prepare$$run_steps$$run_release$    if (rc == $P$_OK) $p$_error_ = "";
    return rc;
}

$api$void $p$_deinit(void)
{
$deinit_backend$    $p$_fast_ = NULL;
    $p$_error_ = "not initialized";
}

$api$const char *$p$_error(void)
{
    return $p$_error_;
}

$api$const tigris_mem_t *$p$_memory(void)
{
    return &$p$_mem_;
}

$api$const tigris_exec_stats_t *$p$_stats(void)
{
    return &$p$_stats_;
}
)C";

}  // namespace

std::string engine_source(const CodegenPlan& plan, const CodegenRequest& r,
                          const std::map<std::string, std::string>& vars) {
  Vars v = vars;
  const std::string& P = v.at("P");
  const bool cmsis = plan.int8 && r.backend == Backend::kCmsisNn;
  const bool esp = plan.int8 && r.backend == Backend::kEspNn;
  const bool state = plan.state_bytes > 0;
  v["includes"] = "\n#include \"tigris_iface.h\"\n#include \"tigris_loader.h\"\n" + backend_includes(plan, r.backend);
  v["assertions"] = limit_assertions(plan, v.at("p"));
  v["workspace"] = std::to_string(plan.workspace_bytes);
  v["state_macro"] = state ? "/* Variables the plan keeps from one run to the next (tigris_state_required()). */\n"
                             "#define " +
                                 P + "_STATE_BYTES " + std::to_string(plan.state_bytes) + "u\n"
                           : "";
  v["state_buffer"] = state ? "static unsigned char " + v.at("p") + "_state_[" + P + "_STATE_BYTES];\n" : "";
  v["state_check"] = state
                         ? "    if (tigris_state_required(plan) > sizeof $p$_state_) {\n"
                           "        return $p$_fail($P$_ERR_STATE, \"the plan keeps more state than was generated\");\n"
                           "    }\n"
                         : "";
  v["state_init"] = state
                        ? "    if (tigris_state_init(&$p$_plan_, $p$_state_, sizeof $p$_state_) != TIGRIS_EXEC_OK) {\n"
                          "        return $p$_fail($P$_ERR_STATE, \"cannot prepare the state\");\n    }\n"
                        : "";
  v["iface_check"] = iface_check(plan, P);
  v["fast_required"] =
      cmsis ? "tigris_cmsis_nn_fast_arena_required(&$p$_plan_)" : "tigris_fast_arena_required(&$p$_plan_)";
  v["init_backend"] = esp ? "    /* ESP-NN obtains its workspace once, from the platform allocator. */\n"
                            "    if (tigris_mem_init(&$p$_mem_, $p$_tensor_ptrs_, $P$_NUM_TENSORS, $p$_fast_, "
                            "$p$_fast_size_, $p$_slow_,\n"
                            "                        $p$_slow_size_) != TIGRIS_MEM_OK ||\n"
                            "        tigris_esp_nn_prepare(&$p$_plan_, &$p$_mem_) != 0) {\n"
                            "        $p$_fast_ = NULL;\n"
                            "        return $p$_fail($P$_ERR_BACKEND, \"tigris_esp_nn_prepare failed\");\n    }\n"
                          : "";
  v["deinit_backend"] = esp ? "    if ($p$_fast_ != NULL) tigris_esp_nn_deinit();\n" : "";
  v["run_prepare"] = cmsis ? "    /* CMSIS-NN reserves its scratch at the top of the fast arena for the run. */\n"
                             "    if (tigris_cmsis_nn_prepare(&$p$_plan_, &$p$_mem_) != 0) {\n"
                             "        return $p$_fail($P$_ERR_BACKEND, \"tigris_cmsis_nn_prepare failed\");\n    }\n"
                           : "";
  v["run_release"] = cmsis ? "    if (tigris_cmsis_nn_deinit(&$p$_mem_) != 0 && rc == $P$_OK) {\n"
                             "        rc = $p$_fail($P$_ERR_BACKEND, \"tigris_cmsis_nn_deinit failed\");\n    }\n"
                           : "";
  v["run_steps"] = run_steps(plan, P);
  v["run_call"] = state
                      ? "tigris_run_with_state(&$p$_plan_, &$p$_mem_, $kernel$, NULL, &$p$_stats_,\n"
                        "                                                     $p$_workspace_, sizeof $p$_workspace_,\n"
                        "                                                     $p$_state_, sizeof $p$_state_)"
                      : "tigris_run_with_workspace_buffer(&$p$_plan_, &$p$_mem_, $kernel$, NULL, &$p$_stats_,\n"
                        "                                                                $p$_workspace_, sizeof "
                        "$p$_workspace_)";
  // Two passes: the pieces above carry $p$/$P$/$kernel$ themselves.
  const std::string once = fill_template(kEngine, v);
  return fill_template(once, v);
}

}  // namespace tigris::cli
