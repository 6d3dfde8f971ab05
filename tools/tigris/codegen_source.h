// The C text `tigris codegen` writes: a header comment describing the plan, the static
// assertions on the runtime's table limits, an engine sized from the plan (init, run,
// deinit around tigris_run_with_workspace_buffer), and either a standalone program for the
// backend's platform (`app`) or a .c/.h pair with a symbol prefix (`core`).
#pragma once

#include <map>
#include <string>

#include "tools/tigris/codegen_plan.h"

namespace tigris::cli {

struct CodegenRequest {
  Backend backend = Backend::kReference;
  bool core = false;
  std::string name = "tigris_codegen";  // symbol prefix (a C identifier)
  std::string source_name;              // file names as the comment and #include show them
  std::string header_name;              // core only
};

struct GeneratedC {
  std::string source;
  std::string header;  // empty for `app`
};

GeneratedC generate_c(const CodegenPlan& plan, const RouteCounts& routes, const CodegenRequest& request);

// Replaces every `$key$` in `text` by vars[key]; an unknown key is a programming error.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& vars);

// The engine every format shares (codegen_engine.cpp): limit assertions, plan-sized storage
// and $p$_init/_run/_deinit/_error/_memory/_stats, `static` in an app.
std::string engine_source(const CodegenPlan& plan, const CodegenRequest& request,
                          const std::map<std::string, std::string>& vars);

// The three `app` programs (codegen_apps.cpp): the text after the engine, using its
// functions through the template variables of `vars`.
std::string posix_app(const CodegenPlan& plan, std::map<std::string, std::string> vars);
std::string bare_metal_app(const CodegenPlan& plan, std::map<std::string, std::string> vars);
std::string esp_idf_app(const CodegenPlan& plan, std::map<std::string, std::string> vars);

}  // namespace tigris::cli
