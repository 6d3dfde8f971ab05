// The flags analyze and compile share (-m, -f, --input-shape) and loading the model
// through the compiler with its errors mapped to the CLI's exit codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/api.h"

namespace CLI {
class App;
}

namespace tigris::cli {

struct ModelOptions {
  std::string model;
  std::vector<std::string> mem;
  std::string flash;
  std::vector<std::string> input_shapes;
};

void add_model_options(CLI::App& sub, ModelOptions& opt, bool mem_required);

// Pools and flash as given: fast (0 = none; a given fast pool <= 0 or beyond uint32 is a
// UsageError), slow as given (may be <= 0), flash.
struct GivenBudgets {
  int64_t fast = 0;
  bool fast_given = false;
  std::optional<int64_t> slow;
  std::optional<int64_t> flash;
};
GivenBudgets parse_budgets(const ModelOptions& opt);

// Loads and normalizes the model. CompileError of kind Usage -> UsageError, other kinds
// -> Failure. Warnings go to stderr unless `quiet`. `file_bytes`, when given, receives the
// bytes read from the file.
compiler::Model load_model_for_cli(const ModelOptions& opt, bool quiet, std::vector<uint8_t>* file_bytes = nullptr);
// From bytes, `name` standing for the file in messages; prints nothing (the caller shows
// model.warnings()). The Python module loads models through this.
compiler::Model load_model_bytes_for_cli(const std::string& name, const std::vector<uint8_t>& bytes,
                                         const std::vector<std::string>& input_shapes);

}  // namespace tigris::cli
