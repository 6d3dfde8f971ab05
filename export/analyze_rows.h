// The two TFLite Micro rows of `tigris analyze` for a TFLite model:
//   TFLite Micro arena    the head (planner plus kernel scratch) and what it leaves out
//   TFLite Micro export   what `tigris export` would save on arm-none-eabi, or `none`
// A model with several subgraphs, a tensor type the arena model does not know, or a file
// export does not read gets neither row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/search.h"
#include "export/tflite/model.h"

namespace tigris::exporter {

struct TflmRows {
  bool shown = false;              // false: neither row
  int64_t tensor_arena_bytes = 0;  // the arena row (analyze --json: tflite_micro.tensor_arena_bytes)
  std::string arena_detail;        // "its planner and reduction scratch; persistent allocations ... excluded"
  std::vector<std::string> arena_excludes;  // analyze --json: tflite_micro.excludes
  // The export row (analyze --json: tflite_micro.export).
  bool export_written = false;  // a rewrite lowers the arena
  ExportOutcome outcome;        // refusal, reason and plan (runs, heads, growth, MACs)
  std::string export_value;     // "-24.69 KiB" or "none"
  std::string export_detail;    // "head 72.00 KiB -> 45.00 KiB, persistent +2.31 KiB, +0.25% MACs,
                                //  reference kernels on arm-none-eabi", or the reason
};

// For a model read leniently (tflite::ReadOptions{.lenient = true}).
TflmRows tflite_micro_rows(const tflite::Model& m);

// Reads the file; an unreadable file gives shown == false.
TflmRows tflite_micro_rows_for_file(const std::string& path);
// The same for a file's bytes already in memory (`file` names it in the reader's messages).
TflmRows tflite_micro_rows_for_bytes(const std::vector<uint8_t>& bytes, const std::string& file);

}  // namespace tigris::exporter
