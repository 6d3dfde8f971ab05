// The compiler library's entry points, as the `tigris` CLI uses them.
//
//   LoadOptions lo;
//   lo.input_shapes.push_back({"x", {1, 3, 224, 224}});
//   Model m = load_model("net.onnx", lo);
//   for (auto& w : m.warnings()) ...                // free dimensions bound, ...
//   Budgets b;
//   b.fast = 256 * 1024;
//   b.slow = 4 << 20;
//   ScheduleResult s = schedule(m, b);              // analyze
//   CompileResult c = compile(m, b);
//   if (!c.ok()) error(c.error); else write(c.plan);
//
// Reports are plain data: every figure `analyze` / `compile` print comes from here.
// All byte counts are exact integers. Functions throw tigris::ir::CompileError (one-line
// message, ErrorKind, op/tensor names) only for inputs that cannot be analysed at all
// (unreadable or corrupt file, external data, a bad --input-shape); an unsupported
// operator or a budget that does not fit is reported in the result instead.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/error.h"

namespace tigris::ir {
struct Graph;
}

namespace tigris::compiler {

using ir::CompileError;
using ir::ErrorKind;

// ---- Loading -------------------------------------------------------------------

// --input-shape NAME:1x3x224x224
struct ShapeBinding {
  std::string input;
  std::vector<int64_t> dims;
};

struct LoadOptions {
  std::vector<ShapeBinding> input_shapes;
  // Intermediate tensors (by name) exposed as extra model outputs, after the declared ones:
  // lets tests and debugging compare every layer with a reference. Unknown names: Usage error.
  std::vector<std::string> extra_outputs;
};

struct TensorSummary {
  std::string name;
  std::vector<int64_t> shape;  // in the caller's (model's declared) axis order
  std::string dtype;           // "float32", "int8", ...
  uint64_t bytes = 0;
};

struct OperatorSummary {
  std::string name;
  std::string type;  // after normalization: "Conv", "DepthwiseConv", "Gemm", "Relu6", ...
};

struct UnsupportedOperator {
  std::string type;    // the ONNX op type as written in the model
  std::string name;    // node name (or "<type>_<index>" when the model gives none)
  std::string reason;  // e.g. "no kernel", "Clip bounds other than [0, 6]"
};

struct ModelSummary {
  std::string path;
  std::string name;                     // the model (graph) name
  std::string format;                   // "onnx" | "tflite"
  std::string dtype;                    // "float32" | "int8" | "mixed" (activations)
  int64_t opset = 0;                    // default-domain opset (ONNX)
  uint32_t operators = 0;               // after normalization
  uint32_t source_operators = 0;        // as the file writes them (ONNX nodes, TFLite operators)
  uint32_t tensors = 0;                 // all tensors, weights included
  uint32_t activations = 0;             // non-constant tensors
  uint32_t subgraphs = 0;               // graphs run by If/While nodes (nested ones included)
  uint64_t weight_bytes = 0;            // constant data, in the plan's layouts (before alignment)
  uint64_t unscheduled_peak_bytes = 0;  // peak of the whole-graph memory timeline (32-aligned sizes)
  TensorSummary largest_tensor;         // the largest activation
  std::vector<TensorSummary> inputs;
  std::vector<TensorSummary> outputs;
  std::vector<TensorSummary> state;  // variables kept between runs (their state inputs)
  std::vector<OperatorSummary> ops;  // in execution order
  std::vector<UnsupportedOperator> unsupported_operators;
  std::vector<std::string> dtype_errors;  // "tensor X is float64; plans hold ..." (first is the verdict)

  bool supported() const { return unsupported_operators.empty() && dtype_errors.empty(); }
};

// A loaded and normalized model. Movable; cheap to schedule many times (budget sweeps).
class Model {
 public:
  Model();
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  const ModelSummary& summary() const;
  // Warnings from loading, one line each, e.g.
  // "input 'x' axis 0 (batch_size) is unset; using 1 (--input-shape overrides)".
  const std::vector<std::string>& warnings() const;
  // The normalized graph (for inspect -v and tests).
  const ir::Graph& graph() const;

  struct Impl;
  explicit Model(std::unique_ptr<Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Load .onnx (or .tflite, detected from the bytes), bind free dimensions, normalize.
// Throws CompileError: Io (unreadable), Parse (not a model / truncated), Invalid (checker,
// shape inference), Unsupported (external data, QOperator), Usage (bad input shape).
Model load_model(const std::string& path, const LoadOptions& options = {});
// The same from bytes already in memory; `name` stands for the path in messages.
Model load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name, const LoadOptions& options = {});

// ---- Scheduling ----------------------------------------------------------------

struct Budgets {
  uint64_t fast = 0;              // fast-arena bytes for activations; 0 = none given
  std::optional<uint64_t> slow;   // slow pool; nullopt = not given (no check)
  std::optional<uint64_t> flash;  // plan-size limit; nullopt = none
};

struct StageSummary {
  uint32_t index = 0;
  uint32_t first_op = 0;  // execution-order indices, inclusive
  uint32_t last_op = 0;
  uint32_t operators = 0;
  uint64_t peak_bytes = 0;           // fast bytes the executor holds at most (32-aligned sizes;
                                     // a chain member: the chain's)
  uint64_t untiled_peak_bytes = 0;   // what the ops would hold as one whole stage
  std::vector<std::string> inputs;   // the stage's inputs (a chain head: every tensor the chain loads)
  std::vector<std::string> outputs;  // the stage's outputs (inner chain members: bands, not spilled)
  uint64_t reload_bytes = 0;         // tensor bytes reloaded from slow memory
  uint64_t spill_bytes = 0;          // tensor bytes spilled to slow memory
  uint64_t load_traffic_bytes = 0;   // bytes the runtime loads (halo rows, residual reloads; on a chain head)
  uint64_t spill_traffic_bytes = 0;  // bytes the runtime spills (on a chain head)
  uint64_t halo_macs = 0;            // multiply-accumulates computed more than once (on a chain head)
  uint64_t slow_bytes = 0;           // slow memory in use at the end of this stage
  bool fits = true;                  // peak_bytes <= fast budget
  bool needs_tiling = false;         // banded or chained: too large to run whole
  // How it runs: "untiled", "stripe", "2D tile", "channel bands", "output-channel bands", "input-channel bands",
  // "concat bands", "concat blocks", "row bands", "reduce by rows", "reduce by element blocks", "transpose",
  // "reshape bands", "leading bands",
  // or "chain" (every member).
  std::string kind = "untiled";
  uint32_t tiles = 0;       // bands (x column tiles); a chain's on its head
  uint32_t tile_rows = 0;   // rows per band (a chain head: chain_tile_h)
  uint32_t tile_cols = 0;   // 2-D tiles: columns per tile
  // Input-channel bands: what a tile's rows and columns are ("rows" or, a 1x1 Conv over its
  // pixel matrix, "pixels"; "input channels" of a Conv or "input columns" of a FullyConnected).
  std::string row_unit = "rows";
  std::string col_unit = "input columns";
  uint32_t extent = 0;      // rows the bands divide
  uint32_t halo = 0;        // rows a band reads beyond its own
  uint32_t axis = 0;        // tile record axis (1 height, 3 HW), 0 untiled
  uint32_t band_axis = 0;   // banded stages: the tensor axis the bands run along (a Concat's own axis)
  int32_t chain_head = -1;  // chain: the head stage's index
  uint32_t chain_len = 0;
  bool line_buffered = false;  // chain head: rows kept between tiles
  std::string decision;        // why it runs this way (analyze -v)
  uint32_t graph = 0;          // the plan's graph holding the stage (0: main; If/While graphs after)
  std::string reason;          // why it does not fit, when !fits
};

struct BlockingStage {
  uint32_t stage = 0;
  uint64_t required_bytes = 0;
  std::string reason;
};

struct FastReport {
  uint64_t budget_bytes = 0;
  bool fits = false;                  // every stage within the budget
  uint64_t scheduled_peak_bytes = 0;  // the largest stage peak (goes into the plan's MEMORY section)
  uint32_t stages = 0;
  uint32_t stages_needing_tiling = 0;
  uint32_t stages_tileable = 0;  // banded stages and chain members
  uint32_t stages_untileable = 0;
  std::vector<std::string> untileable_operators;  // ops of over-budget stages
  uint64_t minimum_for_partition_bytes = 0;       // the floor: no plan fits below it
  std::string floor_operator;                     // the operator that sets it ("name (Type)")
  std::vector<BlockingStage> blocking_stages;     // over-budget stages, largest first
  uint64_t spill_bytes = 0;                       // tensor bytes spilled / reloaded
  uint64_t reload_bytes = 0;
  uint32_t banded_stages = 0;  // standalone stages with a tile record
  uint32_t chains = 0;
  uint64_t tiles = 0;               // bands and tiles the run executes
  uint64_t load_traffic_bytes = 0;  // what the runtime moves (halos, residual reloads)
  uint64_t spill_traffic_bytes = 0;
  uint64_t halo_macs = 0;
  uint64_t weight_reserve_bytes = 0;  // -c lz4: fast bytes held for decompressed weights
};

struct SlowReport {
  std::optional<uint64_t> budget_bytes;
  uint64_t peak_bytes = 0;                // from concurrent liveness of spilled tensors (32-aligned)
  bool fits = true;                       // no budget, or peak <= budget
  std::vector<uint32_t> overflow_stages;  // stages at whose end slow use exceeds the budget
};

struct ScheduleResult {
  FastReport fast;
  SlowReport slow;
  std::vector<StageSummary> stages;  // the plan's stages: the main graph's, then each subgraph's
  bool fits() const { return fast.fits && slow.fits; }
};

// Partition the model into stages under the budget. With budgets.fast == 0 the whole graph
// is one stage (memory figures only). Never throws for a loaded model.
ScheduleResult schedule(const Model& model, const Budgets& budgets);

// ---- Plan emission ---------------------------------------------------------------

enum class Compression { None, Lz4 };

struct CompileOptions {
  Compression compression = Compression::None;  // Lz4: per-stage weight blocks, reserved in fast memory
  bool xip = false;                             // header flag: weights read in place
  bool greedy_schedule = false;                 // baseline for benchmarks: stages grown greedily,
                                                // an op banded only when it cannot run whole
};

struct FlashReport {
  std::optional<uint64_t> budget_bytes;
  uint64_t weight_bytes = 0;              // weight blob (16-aligned entries)
  uint64_t plan_bytes = 0;                // the whole .tgrs
  uint64_t overhead_bytes = 0;            // plan_bytes - weight_bytes
  bool plan_fits = true;                  // no budget, or plan_bytes <= budget
  uint64_t int8_plan_bytes_estimate = 0;  // weights at one byte per element + overhead
  uint64_t lz4_plan_bytes_estimate = 0;   // LZ4 (HC) of the weight blob + overhead
};

struct CompileResult {
  ScheduleResult schedule;
  FlashReport flash;
  std::vector<uint8_t> plan;  // the .tgrs bytes; empty when no plan was written
  std::string error;          // why no plan was written (one line), else empty
  bool ok() const { return !plan.empty(); }
};

// Schedule and emit. Fails (plan empty, `error` set) on unsupported operators, dtype
// errors, a zero or over-uint32 fast budget, a stage over the fast budget, slow overflow,
// or a plan larger than the flash budget. The same model and budgets give the same bytes.
CompileResult compile(const Model& model, const Budgets& budgets, const CompileOptions& options = {});

}  // namespace tigris::compiler
