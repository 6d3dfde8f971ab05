// `tigris export`: the command behind the CLI subcommand, as a library call (the CLI
// only parses flags and prints). See docs/export.md for the contract.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "export/search.h"

namespace tigris::exporter {

struct ExportRequest {
  std::string model;                  // path as the user gave it
  std::optional<std::string> output;  // -o; default: <model stem>_export.tflite beside it
  ExportOptions options;
};

struct ExportResult {
  int exit_status = 0;    // 0 written, 1 nothing written
  std::string out;        // text for stdout (the report; on failure its first line, if any)
  std::string error;      // on failure: "no model written: <reason>" (the CLI adds "Error: ")
  ExportOutcome outcome;  // the search's data
  std::string written;    // the path written, when exit_status == 0
  size_t written_bytes = 0;
};

// Runs the search and, when the total goes down, writes the model (temporary file, then
// rename); otherwise writes nothing.
ExportResult run_export(const ExportRequest& request);

// The same search on a file's bytes already in memory, nothing written (the Python module's
// export): on success `model` receives the rewritten model's bytes and `out` the report
// without its `wrote` line; `written` stays empty. `file` names the model in the report.
ExportResult export_to_memory(const std::vector<uint8_t>& bytes, const std::string& file, const ExportOptions& options,
                              std::vector<uint8_t>& model);

// `<dir>/<stem>_export.tflite` for `<dir>/<stem>.tflite`.
std::string default_output_path(const std::string& model);

// `N B` below 1 KiB, `X.XX KiB` below 1 MiB, else `X.XX MiB`; signed form prefixes + / -.
std::string format_bytes(int64_t bytes);
std::string format_signed_bytes(int64_t bytes);

// "operators 2-3 computed in 4 row bands, +0.25% MACs; 46 operators after export"
std::string describe_plan(const ExportPlan& plan);

}  // namespace tigris::exporter
