// The tigris command: subcommand registration and the exit-code conventions.
//   0  success
//   1  a failure: `Error: <what, where>` on stderr
//   2  a usage error: the command line itself is wrong, one line on stderr
#include <CLI/CLI.hpp>

#include <cstdio>
#include <new>

#include "tigris.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/export.h"
#include "tools/tigris/terminal_text.h"

namespace tigris::cli {

std::string version_line() {
  return std::string("tigris, version ") + TIGRIS_VERSION_STRING + " (runtime " +
         std::to_string(TIGRIS_RUNTIME_VERSION_MAJOR) + "." + std::to_string(TIGRIS_RUNTIME_VERSION_MINOR) + "." +
         std::to_string(TIGRIS_RUNTIME_VERSION_PATCH) + "; bundled)";
}

namespace {

// The deepest subcommand the parser reached, for the help hint of a usage error.
std::string command_path(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    if (sub->parsed()) return app.get_name() + " " + command_path(*sub);
  }
  return app.get_name();
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// Messages quote names from files and the command line: printable() keeps the line to one
// line of valid UTF-8.
int usage_error(const CLI::App& app, const std::string& message) {
  std::fprintf(stderr, "Error: %s (see '%s --help')\n", printable(one_line(message), false).c_str(),
               command_path(app).c_str());
  return 2;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "Error: %s\n", printable(one_line(message), false).c_str());
  return 1;
}

// CLI11 words a first argument that names no subcommand "A subcommand is required".
std::string unknown_command(int argc, char** argv, const Registry& commands) {
  if (argc < 2 || argv[1][0] == '-') return "";
  std::string names;
  for (const Command& c : commands) {
    if (c.app->get_name() == argv[1]) return "";
    names += (names.empty() ? "" : ", ") + c.app->get_name();
  }
  return std::string("unknown command '") + argv[1] + "'; the commands are " + names;
}

}  // namespace
}  // namespace tigris::cli

int main(int argc, char** argv) {
  using namespace tigris::cli;
  CLI::App app{"Fit ONNX and TFLite models into the memory of embedded devices."};
  app.name("tigris");
  app.set_version_flag("--version", version_line(), "Show the version and exit.");
  app.require_subcommand(1, 1);

  Registry commands;
  register_analyze(app, commands);
  register_compile(app, commands);
  register_codegen(app, commands);
  register_export(app, commands);
  register_inspect(app, commands);
  register_run(app, commands);

  if (const std::string unknown = unknown_command(argc, argv, commands); !unknown.empty()) {
    return usage_error(app, unknown);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e.what());
  }

  try {
    for (const Command& command : commands) {
      if (command.app->parsed()) command.run();
    }
  } catch (const UsageError& e) {
    return usage_error(app, e.what());
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
