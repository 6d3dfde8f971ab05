// Subcommand registration. Each subcommand file defines one register_* function
// that adds its CLI11 subcommand and the action main() runs when it was chosen.
// Actions report failures by throwing cli::Failure (exit 1) or cli::UsageError (exit 2).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tigris::cli {

struct Command {
  CLI::App* app = nullptr;    // the subcommand
  std::function<void()> run;  // called after a successful parse when it was chosen
};
using Registry = std::vector<Command>;

void register_analyze(CLI::App& app, Registry& commands);
void register_codegen(CLI::App& app, Registry& commands);
void register_compile(CLI::App& app, Registry& commands);
void register_inspect(CLI::App& app, Registry& commands);
void register_run(CLI::App& app, Registry& commands);

// `tigris, version X (runtime V; bundled)`.
std::string version_line();

}  // namespace tigris::cli
