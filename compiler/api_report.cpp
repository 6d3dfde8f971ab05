// Model summary and schedule report: the data `analyze` prints.
#include <algorithm>

#include "compiler/api_internal.h"
#include "compiler/plan/lower.h"
#include "compiler/schedule/lifetimes.h"

namespace tigris::compiler::detail {

namespace {

// Shape in the caller's (model's declared) axis order.
// TFLite models declare every rank-3/4 tensor channels-last (`nhwc`).
std::vector<int64_t> caller_shape(const ir::Tensor& t, bool nhwc = false) {
  bool last = t.layout == ir::Layout::ChannelsLast;
  if ((nhwc || t.caller_channels_last) && (t.rank() == 3 || t.rank() == 4))
    return last ? t.shape : ir::permute_shape(t.shape, ir::to_channels_last_perm(t.rank()));
  if (!last) return t.shape;
  return ir::permute_shape(t.shape, ir::to_channels_first_perm(t.rank()));
}

// The dtype callers see: the declared one at a boundary (a QDQ float32 input stored int8).
TensorSummary tensor_summary(const ir::Tensor& t) {
  ir::DType d = t.declared_dtype != ir::DType::Undefined ? t.declared_dtype : t.dtype;
  uint64_t bytes = static_cast<uint64_t>(t.elements()) * ir::dtype_size(d);
  return TensorSummary{t.name, caller_shape(t), ir::dtype_name(d), bytes};
}

std::string model_dtype(const ir::Graph& g) {
  bool any_float = false, any_int8 = false, any_int16 = false;
  for (const ir::Tensor& t : g.tensors) {
    if (t.constant) continue;
    any_float = any_float || t.dtype == ir::DType::Float32;
    any_int8 = any_int8 || ((t.dtype == ir::DType::Int8 || t.dtype == ir::DType::UInt8) && t.quant);
    any_int16 = any_int16 || (t.dtype == ir::DType::Int16 && t.quant);
  }
  if (any_int16) return any_float || any_int8 ? "mixed" : "int16";  // 16x8 quantization
  if (any_int8) return any_float ? "mixed" : "int8";
  return "float32";
}

// Every node of the graph and of the graphs its If/While nodes run.
void find_unsupported(const ir::Graph& g, ModelSummary& s) {
  plan::WeightTable scratch;
  for (const ir::Node& n : g.nodes) {
    try {
      plan::lower_node(g, n, scratch);
    } catch (const ir::CompileError& e) {
      std::string what = e.what();
      std::string prefix = n.op + " '" + n.name + "': ";
      std::string reason = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
      s.unsupported_operators.push_back({n.op, n.name, reason});
    }
  }
  for (const ir::Tensor& t : g.tensors)
    if (!t.constant && !ir::dtype_storable(t.dtype))
      s.dtype_errors.push_back("tensor '" + t.name + "' is " + ir::dtype_name(t.dtype) +
                               "; plans hold float32, int8, uint8, int16, int32, int64 and bool");
  for (const ir::Graph& sub : g.subgraphs) find_unsupported(sub, s);
}

uint32_t count_subgraphs(const ir::Graph& g) {
  uint32_t n = 0;
  for (const ir::Graph& sub : g.subgraphs) n += 1 + count_subgraphs(sub);
  return n;
}

}  // namespace

std::string bytes_str(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

ModelSummary summarize(const ir::Graph& g, const std::string& path) {
  ModelSummary s;
  s.path = path;
  s.name = g.name;
  s.format = g.format;
  s.dtype = model_dtype(g);
  s.opset = g.opset;
  s.operators = static_cast<uint32_t>(g.nodes.size());
  s.source_operators = g.source_operators;
  s.tensors = static_cast<uint32_t>(g.tensors.size());
  s.subgraphs = count_subgraphs(g);
  for (const ir::Tensor& t : g.tensors) {
    if (t.constant) {
      s.weight_bytes += t.data.size();
      continue;
    }
    ++s.activations;
    if (t.bytes() > s.largest_tensor.bytes || s.largest_tensor.name.empty())
      s.largest_tensor =
          TensorSummary{t.name, caller_shape(t, g.format == "tflite"), ir::dtype_name(t.dtype), t.bytes()};
  }
  s.unscheduled_peak_bytes = schedule::memory_timeline(g, schedule::compute_lifetimes(g)).peak_bytes;
  for (ir::TensorId id : g.inputs) s.inputs.push_back(tensor_summary(g.tensor(id)));
  for (ir::TensorId id : g.outputs) s.outputs.push_back(tensor_summary(g.tensor(id)));
  for (const ir::StateVar& v : g.state) {
    s.state.push_back(tensor_summary(g.tensor(v.input)));
    s.state.back().name = v.name;
  }
  for (const ir::Node& n : g.nodes) s.ops.push_back({n.name, n.op});
  find_unsupported(g, s);
  return s;
}

namespace {

const char* kind_name(const schedule::Stage& st) {
  if (st.form == schedule::StageForm::Chain) return "chain";
  if (st.form == schedule::StageForm::Normal) return "untiled";
  switch (st.band.kind) {
  case TIGRIS_BAND_KIND_STRIPE: return "stripe";
  case TIGRIS_BAND_KIND_HW: return "2D tile";
  case TIGRIS_BAND_KIND_CHANNELS:
    return st.band.mode == TIGRIS_CHANNELS_MODE_OUTPUT  ? "output-channel bands"
           : st.band.mode == TIGRIS_CHANNELS_MODE_INPUT ? "input-channel bands"
                                                        : "channel bands";
  case TIGRIS_BAND_KIND_CONCAT: return st.band.mode == TIGRIS_CONCAT_MODE_BLOCKS ? "concat blocks" : "concat bands";
  case TIGRIS_BAND_KIND_ROWS: return "row bands";
  case TIGRIS_BAND_KIND_BY_INPUT:
    return st.band.mode == TIGRIS_BY_INPUT_MODE_FLAT ? "reduce by element blocks" : "reduce by rows";
  case TIGRIS_BAND_KIND_TRANSPOSE: return "transpose";
  case TIGRIS_BAND_KIND_RESHAPE: return "reshape bands";
  case TIGRIS_BAND_KIND_LEADING: return "leading bands";
  default: return "banded";
  }
}

StageSummary stage_summary(const ir::Graph& g, const schedule::Stage& st, uint32_t index, uint64_t untiled) {
  StageSummary s;
  s.index = index;
  s.first_op = static_cast<uint32_t>(st.first);
  s.last_op = static_cast<uint32_t>(st.end - 1);
  s.operators = static_cast<uint32_t>(st.end - st.first);
  s.peak_bytes = st.peak_bytes;
  s.untiled_peak_bytes = untiled;
  for (ir::TensorId id : st.inputs) s.inputs.push_back(g.tensor(id).name);
  for (ir::TensorId id : st.outputs) s.outputs.push_back(g.tensor(id).name);
  s.reload_bytes = st.reload_bytes;
  s.spill_bytes = st.spill_bytes;
  s.load_traffic_bytes = st.load_traffic;
  s.spill_traffic_bytes = st.spill_traffic;
  s.halo_macs = st.halo_macs;
  s.slow_bytes = st.slow_bytes_after;
  s.fits = st.fits;
  s.kind = kind_name(st);
  s.needs_tiling = st.form != schedule::StageForm::Normal;
  const bool head = st.form != schedule::StageForm::Chain || st.chain_head == static_cast<int>(index);
  if (st.form != schedule::StageForm::Normal && head) {
    s.tiles = st.band.tiles;
    s.tile_rows = st.band.rows;
    s.tile_cols = st.band.cols;
    s.extent = st.band.extent;
    s.halo = st.band.halo;
    s.line_buffered = st.band.line_buffered;
  }
  if (st.form == schedule::StageForm::Banded) s.axis = st.band.axis, s.band_axis = st.band.band_axis;
  if (st.form == schedule::StageForm::Banded && st.band.kind == TIGRIS_BAND_KIND_CHANNELS &&
      st.band.mode == TIGRIS_CHANNELS_MODE_INPUT && g.nodes[static_cast<size_t>(st.first)].op == "Conv") {
    s.col_unit = "input channels";
    if (st.band.band_axis == 0) s.row_unit = "pixels";  // a 1x1 Conv over its [N*H*W, C_in] matrix
  }
  if (st.form == schedule::StageForm::Chain) {
    s.axis = TIGRIS_TILE_AXIS_HEIGHT;
    s.chain_head = st.chain_head;
    s.chain_len = static_cast<uint32_t>(st.chain_len);
  }
  s.decision = st.decision;
  s.reason = st.reason;
  if (!st.fits && s.reason.empty()) s.reason = "exceeds the budget";
  return s;
}

uint64_t minimum_for_partition(const ir::Graph& g, const schedule::Schedule& sch) {
  if (sch.floor > 0) return sch.floor;
  uint64_t m = 0;
  int n = static_cast<int>(g.nodes.size());
  for (int i = 0; i < n; ++i)
    if (!ir::is_control_flow(g.nodes[static_cast<size_t>(i)]))
      m = std::max(m, schedule::stage_cost(g, i, i + 1, n == 1));
  return m;
}

// The stage rows of graph g (numbered as the plan numbers them), then of its subgraphs,
// depth first as emission orders the plan's graphs.
void add_stage_summaries(const ir::Graph& g, const schedule::Schedule& sch, ScheduleResult& r,
                         uint32_t& next_graph) {
  FastReport& f = r.fast;
  const uint32_t graph = next_graph++;
  const uint32_t base = static_cast<uint32_t>(r.stages.size());
  for (size_t i = 0; i < sch.stages.size(); ++i) {
    const schedule::Stage& st = sch.stages[i];
    // What the ops would hold as one whole stage (below the floor a stage states its
    // smallest form as its peak, so this is computed for every stage). An If/While stage
    // holds nothing in fast memory (its graphs' stages do).
    const bool control = ir::is_control_flow(g.nodes[static_cast<size_t>(st.first)]);
    const uint64_t untiled = control ? 0 : schedule::stage_cost(g, st.first, st.end, false);
    StageSummary s = stage_summary(g, st, base + static_cast<uint32_t>(i), untiled);
    s.graph = graph;
    if (st.form == schedule::StageForm::Chain) s.chain_head += static_cast<int>(base);
    f.spill_bytes += s.spill_bytes;
    f.reload_bytes += s.reload_bytes;
    f.load_traffic_bytes += s.load_traffic_bytes;
    f.spill_traffic_bytes += s.spill_traffic_bytes;
    f.halo_macs += s.halo_macs;
    f.tiles += s.tiles;
    if (st.form == schedule::StageForm::Banded) ++f.banded_stages;
    if (st.form == schedule::StageForm::Chain && st.chain_head == static_cast<int>(i)) ++f.chains;
    if (s.needs_tiling) {
      ++f.stages_needing_tiling;
      ++f.stages_tileable;
    }
    if (!s.fits) {
      ++f.stages_untileable;
      for (uint32_t k = s.first_op; k <= s.last_op; ++k) f.untileable_operators.push_back(g.nodes[k].name);
      f.blocking_stages.push_back({s.index, s.peak_bytes, s.reason});
    }
    r.stages.push_back(std::move(s));
  }
  for (size_t k = 0; k < g.subgraphs.size() && k < sch.subgraphs.size(); ++k)
    add_stage_summaries(g.subgraphs[k], sch.subgraphs[k], r, next_graph);
}

}  // namespace

std::pair<ScheduleResult, schedule::Schedule> schedule_report(const ir::Graph& g, const Budgets& budgets,
                                                              const schedule::PartitionOptions& options) {
  schedule::Schedule sch = schedule::partition(g, budgets.fast, options);
  ScheduleResult r;
  FastReport& f = r.fast;
  f.budget_bytes = budgets.fast;
  f.fits = sch.fits;
  f.scheduled_peak_bytes = sch.scheduled_peak;
  f.minimum_for_partition_bytes = minimum_for_partition(g, sch);
  f.floor_operator = sch.floor_op;
  uint32_t graphs = 0;
  add_stage_summaries(g, sch, r, graphs);
  f.stages = static_cast<uint32_t>(r.stages.size());
  std::stable_sort(f.blocking_stages.begin(), f.blocking_stages.end(),
                   [](const BlockingStage& a, const BlockingStage& b) { return a.required_bytes > b.required_bytes; });
  SlowReport& sl = r.slow;
  sl.budget_bytes = budgets.slow;
  sl.peak_bytes = sch.slow_peak;
  for (const StageSummary& s : r.stages)
    if (budgets.slow && s.slow_bytes > *budgets.slow) sl.overflow_stages.push_back(s.index);
  sl.fits = sl.overflow_stages.empty();
  return {std::move(r), std::move(sch)};
}

}  // namespace tigris::compiler::detail
