// `tigris export MODEL [-o OUTPUT] [--target arm-none-eabi|ilp32|lp64] [--max-runs N]`:
// rewrite a TFLite model so that TFLite Micro runs it in a smaller arena (docs/export.md).
// main() calls register_export(app, commands) like every other subcommand.
#pragma once

#include "tools/tigris/commands.h"

namespace tigris::cli {

// Adds the `export` subcommand. Its action prints the report on stdout; when nothing is
// written it prints the first line and throws Failure("no model written: <reason>")
// (exit 1, `Error: ...` on stderr). A bad --target or --max-runs is a usage error (exit 2).
void register_export(CLI::App& app, Registry& commands);

}  // namespace tigris::cli
