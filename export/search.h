// The export search: every run x band count (2..10) x with and without PAD folds, judged
// by TFLite Micro's arena for a target; the lowest total (head change + persistent
// growth) wins, and only a total below zero is a result (docs/export.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "export/tflite/model.h"
#include "export/tflm/arena.h"

namespace tigris::exporter {

struct ExportOptions {
  tflm::Target target = tflm::Target::ArmNoneEabi;
  int max_runs = 1;  // band up to this many disjoint runs (the spec's export bands one)
};

struct BandedRun {
  size_t first_op = 0, last_op = 0;  // in the input model's operator numbering
  int bands = 0;
};

struct ExportPlan {
  std::vector<BandedRun> runs;  // in operator order
  int folded_pads = 0;
  int64_t macs_before = 0, macs_after = 0;
  size_t operators_before = 0, operators_after = 0;
  tflm::Arena before, after;

  int64_t head_change() const { return after.head - before.head; }
  int64_t persistent_growth() const { return after.tail - before.tail; }
  int64_t total_change() const { return head_change() + persistent_growth(); }
  double mac_overhead_percent() const {
    return macs_before ? 100.0 * static_cast<double>(macs_after - macs_before) / static_cast<double>(macs_before) : 0.0;
  }
};

// Why nothing is written; the spec's reasons.
enum class Refusal {
  None,
  NoGain,            // "no rewrite lowers the arena"
  SeveralSubgraphs,  // "models with several subgraphs are not exported"
  Metadata,          // "metadata NAME is not supported"
  TensorType,        // "a tensor type TFLite Micro's arena model does not know..."
  Scratch,           // "TFLite Micro's scratch buffers for KIND are not modeled"
  Persistent,        // "TFLite Micro's persistent allocations for KIND are not modeled"
  Unreadable,        // the file: not TFLite, an index out of range, a schema part not carried
};

struct ExportOutcome {
  Refusal refusal = Refusal::None;
  std::string reason;  // empty when refusal == None
  size_t input_operators = 0;
  ExportPlan plan;      // when refusal == None (before is also set for NoGain)
  tflite::Model model;  // the rewritten model, when refusal == None
};

// Runs the search on a model read leniently (Model::uncarried is a refusal).
ExportOutcome plan_export(const tflite::Model& m, const ExportOptions& opts = {});

// Reads `path` and runs the search; unreadable files give Refusal::Unreadable with the
// reader's message (without the file name when the content is at fault).
ExportOutcome plan_export_file(const std::string& path, const ExportOptions& opts = {});
// The same for a file's bytes already in memory (`file` names it in the reader's messages).
ExportOutcome plan_export_bytes(const std::vector<uint8_t>& bytes, const std::string& file,
                                const ExportOptions& opts = {});

}  // namespace tigris::exporter
