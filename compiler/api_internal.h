// Pieces of the API implementation (api.cpp, api_report.cpp, api_compile.cpp).
#pragma once

#include <string>
#include <utility>

#include "compiler/api.h"
#include "compiler/ir/graph.h"
#include "compiler/schedule/stages.h"

namespace tigris::compiler {

struct Model::Impl {
  ModelSummary summary;
  std::vector<std::string> warnings;
  ir::Graph graph;
};

namespace detail {

ModelSummary summarize(const ir::Graph& g, const std::string& path);

// The report and the schedule it describes.
std::pair<ScheduleResult, schedule::Schedule> schedule_report(const ir::Graph& g, const Budgets& budgets,
                                                              const schedule::PartitionOptions& options = {});

CompileResult compile_model(const Model& model, const Budgets& budgets, const CompileOptions& options);

// "1.50 KiB"-free exact wording used in messages: "N bytes".
std::string bytes_str(uint64_t bytes);

}  // namespace detail
}  // namespace tigris::compiler
