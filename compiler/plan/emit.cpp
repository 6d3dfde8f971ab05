#include "compiler/plan/emit.h"

#include <algorithm>

#include "compiler/ir/error.h"
#include "compiler/plan/emit_quant.h"
#include "compiler/plan/lower.h"

namespace tigris::plan {

namespace {

using ir::CompileError;
using ir::ErrorKind;

uint16_t to_u16(size_t v, const char* what) {
  if (v >= 0xFFFF) throw CompileError(ErrorKind::Unsupported, std::string("too many ") + what + " for a plan");
  return static_cast<uint16_t>(v);
}

struct TensorMap {
  std::vector<int> plan_index;  // IR id -> plan tensor index, -1 for constants
  uint16_t at(ir::TensorId id) const {
    int v = plan_index.at(static_cast<size_t>(id));
    if (v < 0) throw CompileError(ErrorKind::Internal, "constant tensor used as a plan tensor");
    return static_cast<uint16_t>(v);
  }
};

TensorMap add_tensors(const ir::Graph& g, PlanDesc& p, bool main) {
  TensorMap m;
  m.plan_index.assign(g.tensors.size(), -1);
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const ir::Tensor& t = g.tensors[i];
    if (t.constant) continue;
    TensorDesc d;
    d.name = t.name;
    for (int64_t dim : t.shape) {
      if (dim <= 0 || dim > 0x7FFFFFFF)
        throw CompileError(ErrorKind::Unsupported, "tensor '" + t.name + "' has extent " + std::to_string(dim), {},
                           {t.name});
      d.shape.push_back(static_cast<int32_t>(dim));
    }
    d.dtype = static_cast<uint8_t>(t.dtype);
    d.flags = tensor_flags(g, static_cast<ir::TensorId>(i));
    // A subgraph's inputs and outputs are bound by its If/While, not by the caller.
    if (!main) d.flags &= static_cast<uint8_t>(~(TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT |
                                                 TIGRIS_TENSOR_CALLER_ORDER | TIGRIS_TENSOR_STATE));
    if (t.quant) d.quant = add_quant(p, *t.quant, t.name);
    bool boundary = d.flags & (TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT);
    if (boundary && t.declared_dtype != ir::DType::Undefined && t.declared_dtype != t.dtype)
      d.iface_dtype = static_cast<uint8_t>(t.declared_dtype);
    m.plan_index[i] = to_u16(p.tensors.size(), "tensors");
    p.tensors.push_back(std::move(d));
  }
  return m;
}

std::vector<uint16_t> mapped(const TensorMap& m, const std::vector<ir::TensorId>& ids) {
  std::vector<uint16_t> out;
  for (ir::TensorId id : ids) out.push_back(m.at(id));
  return out;
}

// `graph_numbers`: the plan's number of each of g's subgraphs (control-flow attributes).
void add_ops(const ir::Graph& g, const TensorMap& m, WeightTable& weights, PlanDesc& p,
             const std::vector<uint16_t>& graph_numbers) {
  for (const ir::Node& n : g.nodes) {
    LoweredOp lo = lower_node(g, n, weights);
    for (auto& [kind, data] : lo.attrs) {
      if (kind != TIGRIS_ATTR_SUBGRAPHS) continue;
      for (size_t k = 0; k + 1 < data.size(); k += 2) {
        const uint16_t plan_graph = graph_numbers.at(static_cast<size_t>(data[k] | data[k + 1] << 8));
        data[k] = static_cast<uint8_t>(plan_graph);
        data[k + 1] = static_cast<uint8_t>(plan_graph >> 8);
      }
    }
    OpDesc op;
    op.name = n.name;
    op.type = lo.type;
    op.inputs = mapped(m, lo.inputs);
    op.outputs = mapped(m, lo.outputs);
    op.spatial = lo.spatial;
    op.weight = lo.weight;
    op.bias = lo.bias;
    op.fused_act = lo.fused_act;
    uint16_t index = to_u16(p.ops.size(), "operators");
    size_t attrs_from = p.attributes.size();
    for (auto& [kind, data] : lo.attrs) {
      if (data.size() > 255)
        throw CompileError(ErrorKind::Unsupported, n.op + " '" + n.name + "': attribute longer than 255 bytes",
                           {n.name});
      p.attributes.push_back(AttrDesc{index, kind, std::move(data)});
    }
    apply_int8(lo, n.name, op.outputs.at(0), attrs_from, op, p);
    p.ops.push_back(std::move(op));
  }
}

// The tile record a banded stage states (facts are filled from the plan by fill_tile_facts).
tigris_tile_plan_v11_t tile_record(const schedule::Stage& st) {
  const schedule::BandChoice& b = st.band;
  tigris_tile_plan_v11_t r{};
  r.choices.tileable = 1;
  r.choices.axis = b.axis;
  r.choices.tile_extent_wide = b.rows;
  r.choices.tile_height = static_cast<uint16_t>(std::min<uint32_t>(b.rows, 0xFFFF));
  r.choices.tile_width = static_cast<uint16_t>(std::min<uint32_t>(b.cols, 0xFFFF));
  r.choices.flags = b.flags;
  r.choices.num_tiles = static_cast<uint16_t>(std::min<uint32_t>(b.tiles, 0xFFFF));
  r.choices.halo = static_cast<uint16_t>(std::min<uint32_t>(b.halo, 0xFFFF));
  r.choices.receptive_field = static_cast<uint16_t>(std::min<uint32_t>(b.halo + 1, 0xFFFF));
  r.choices.original_height = static_cast<uint16_t>(std::min<uint32_t>(b.extent, 0xFFFF));
  r.choices.tiled_peak_bytes = static_cast<uint32_t>(std::min<uint64_t>(st.peak_bytes, 0xFFFFFFFFu));
  const uint64_t io = st.reload_bytes + st.spill_bytes;
  const uint64_t moved = st.load_traffic + st.spill_traffic;
  r.choices.overhead_bytes = static_cast<uint32_t>(std::min<uint64_t>(moved > io ? moved - io : 0, 0xFFFFFFFFu));
  r.facts.band = TIGRIS_TILE_BAND(b.kind, b.mode);
  return r;
}

// The stages of one graph: its ops are plan ops from `op_base`, its stages from p.stages.size().
void add_stages(const schedule::Schedule& s, const TensorMap& m, PlanDesc& p, size_t op_base) {
  const size_t stage_base = p.stages.size();
  for (size_t k = 0; k < s.stages.size(); ++k) {
    const schedule::Stage& st = s.stages[k];
    StageDesc d;
    for (int i = st.first; i < st.end; ++i) d.ops.push_back(to_u16(op_base + static_cast<size_t>(i), "operators"));
    d.inputs = mapped(m, st.inputs);
    d.outputs = mapped(m, st.outputs);
    d.peak_bytes = static_cast<uint32_t>(std::min<uint64_t>(st.peak_bytes, 0xFFFFFFFFu));
    if (st.form == schedule::StageForm::Banded) {
      p.tile_plans.push_back(tile_record(st));
      d.tile_plan = to_u16(p.tile_plans.size() - 1, "tile records");
    } else if (st.form == schedule::StageForm::Chain) {
      d.chain_id = to_u16(stage_base + static_cast<size_t>(st.chain_head), "stages");
      d.chain_len = static_cast<uint16_t>(st.chain_len);
      if (static_cast<int>(k) == st.chain_head) {
        d.chain_tile_h = static_cast<uint16_t>(std::min<uint32_t>(st.band.rows, 0xFFFF));
        d.flags = st.band.line_buffered ? TIGRIS_STAGE_LINE_BUFFERED : 0;
      }
    }
    p.stages.push_back(std::move(d));
  }
}

// One STATE entry per variable, laid out one after another in the caller's buffer (each
// 4-aligned, so the buffer holds any dtype's values at their natural alignment).
void add_state(const ir::Graph& g, const TensorMap& m, PlanDesc& p) {
  uint32_t offset = 0;
  for (const ir::StateVar& v : g.state) {
    const ir::Tensor& t = g.tensor(v.input);
    StateDesc d;
    d.input = m.at(v.input);
    if (v.output != ir::kNoTensor) d.output = m.at(v.output);
    d.offset = offset;
    d.initial = v.initial.empty() ? std::vector<uint8_t>(t.bytes(), 0) : v.initial;
    if (d.initial.size() != t.bytes())
      throw CompileError(ErrorKind::Internal, "state variable '" + v.name + "': initial value has the wrong size");
    offset += static_cast<uint32_t>((t.bytes() + 3) / 4 * 4);
    p.state.push_back(std::move(d));
  }
}

}  // namespace

uint8_t tensor_flags(const ir::Graph& g, ir::TensorId id) {
  const ir::Tensor& t = g.tensor(id);
  uint8_t flags = 0;
  if (t.constant) flags |= TIGRIS_TENSOR_CONSTANT;
  if (std::find(g.inputs.begin(), g.inputs.end(), id) != g.inputs.end()) flags |= TIGRIS_TENSOR_MODEL_INPUT;
  if (std::find(g.outputs.begin(), g.outputs.end(), id) != g.outputs.end()) flags |= TIGRIS_TENSOR_MODEL_OUTPUT;
  if (g.is_state(id)) flags |= TIGRIS_TENSOR_STATE;
  if ((t.rank() == 3 || t.rank() == 4) && t.layout == ir::Layout::Model) flags |= TIGRIS_TENSOR_LINEAR;
  // TFLite boundaries: the caller's (channels-last) array is the stored one.
  if ((flags & (TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT)) && t.caller_channels_last &&
      (t.rank() == 3 || t.rank() == 4) && t.layout == ir::Layout::ChannelsLast)
    flags |= TIGRIS_TENSOR_CALLER_ORDER;
  return flags;
}

uint64_t weight_blob_bytes(const std::vector<WeightDesc>& weights) {
  uint64_t total = 0;
  for (const WeightDesc& w : weights) total += (w.data.size() + 15) / 16 * 16;
  return total;
}

namespace {

// The plan's graphs in their order: the main graph first, then each graph before the graphs
// its If/While nodes run (depth first), so graph numbers are known when ops are lowered.
struct PlanGraph {
  const ir::Graph* graph;
  const schedule::Schedule* schedule;
  std::vector<uint16_t> sub_numbers;  // plan number of each of graph->subgraphs
};

uint16_t number_graphs(const ir::Graph& g, const schedule::Schedule& s, std::vector<PlanGraph>& out) {
  if (s.subgraphs.size() != g.subgraphs.size())
    throw CompileError(ErrorKind::Internal, "graph '" + g.name + "': subgraphs not scheduled");
  const size_t index = out.size();
  out.push_back(PlanGraph{&g, &s, {}});
  for (size_t k = 0; k < g.subgraphs.size(); ++k) {
    const uint16_t number = number_graphs(g.subgraphs[k], s.subgraphs[k], out);
    out[index].sub_numbers.push_back(number);
  }
  return to_u16(index, "graphs");
}

// The runtime copies an If/While's operands into its graphs' inputs and their outputs into its
// results byte for byte: each pair must have one dtype and one stored shape.
void check_binding(const ir::Graph& g, const ir::Node& n, const std::vector<ir::TensorId>& outer,
                   const ir::Graph& sub, const std::vector<ir::TensorId>& inner) {
  auto fail = [&](const std::string& why) {
    throw CompileError(ErrorKind::Unsupported, n.op + " '" + n.name + "': " + why, {n.name});
  };
  if (outer.size() != inner.size())
    fail(std::to_string(outer.size()) + " operands or results against " + std::to_string(inner.size()) +
         " graph inputs or outputs");
  for (size_t i = 0; i < outer.size(); ++i) {
    const ir::Tensor& a = g.tensor(outer[i]);
    const ir::Tensor& b = sub.tensor(inner[i]);
    // One element is the same bytes whatever its shape ([] or [1]: ONNX conditions).
    if (a.dtype != b.dtype || (a.shape != b.shape && !(a.elements() == 1 && b.elements() == 1)))
      fail("'" + a.name + "' and '" + b.name + "' differ in type or stored shape");
    if (((tensor_flags(g, outer[i]) ^ tensor_flags(sub, inner[i])) & TIGRIS_TENSOR_LINEAR) != 0)
      fail("'" + a.name + "' and '" + b.name + "' are stored in different axis orders");
  }
}

void check_bindings(const ir::Graph& g) {
  for (const ir::Node& n : g.nodes) {
    const std::vector<int> graphs = ir::control_graphs(n);
    if (graphs.empty()) continue;
    const ir::Graph& a = g.subgraphs.at(static_cast<size_t>(graphs[0]));
    const ir::Graph& b = g.subgraphs.at(static_cast<size_t>(graphs[1]));
    if (n.op == "If") {
      const std::vector<ir::TensorId> operands(n.inputs.begin() + 1, n.inputs.end());
      for (const ir::Graph* branch : {&a, &b}) {
        check_binding(g, n, operands, *branch, branch->inputs);
        check_binding(g, n, n.outputs, *branch, branch->outputs);
      }
    } else {
      check_binding(g, n, n.inputs, g, n.outputs);
      check_binding(g, n, n.outputs, a, a.inputs);
      check_binding(g, n, n.outputs, b, b.inputs);
      check_binding(g, n, n.outputs, b, b.outputs);
      if (a.outputs.size() != 1 || a.tensor(a.outputs[0]).dtype != ir::DType::Bool ||
          a.tensor(a.outputs[0]).elements() != 1)
        throw CompileError(ErrorKind::Unsupported, "While '" + n.name + "': the condition graph does not give one bool",
                           {n.name});
    }
  }
}

}  // namespace

PlanDesc describe_plan(const ir::Graph& g, const schedule::Schedule& s, const EmitOptions& o) {
  PlanDesc p;
  p.model_name = o.model_name;
  p.budget = o.budget;
  p.peak = o.unscheduled_peak;
  p.flags = o.xip ? TIGRIS_FLAG_XIP : 0;
  std::vector<PlanGraph> graphs;
  number_graphs(g, s, graphs);
  WeightTable weights;
  std::vector<TensorMap> maps;
  for (size_t k = 0; k < graphs.size(); ++k) maps.push_back(add_tensors(*graphs[k].graph, p, k == 0));
  for (size_t k = 0; k < graphs.size(); ++k) {
    const ir::Graph& graph = *graphs[k].graph;
    check_bindings(graph);
    const size_t op_base = p.ops.size();
    const size_t stage_base = p.stages.size();
    weights.enter_graph(k);
    add_ops(graph, maps[k], weights, p, graphs[k].sub_numbers);
    add_stages(*graphs[k].schedule, maps[k], p, op_base);
    if (graphs.size() > 1) {
      SubgraphDesc d;
      d.first_stage = to_u16(stage_base, "stages");
      d.num_stages = to_u16(p.stages.size() - stage_base, "stages");
      d.inputs = mapped(maps[k], graph.inputs);
      d.outputs = mapped(maps[k], graph.outputs);
      p.subgraphs.push_back(std::move(d));
    }
  }
  p.weights = weights.take();
  p.model_inputs = mapped(maps[0], g.inputs);
  p.model_outputs = mapped(maps[0], g.outputs);
  add_state(g, maps[0], p);
  p.scheduled_peak = static_cast<uint32_t>(std::min<uint64_t>(s.scheduled_peak, 0xFFFFFFFFu));
  p.slow_peak = static_cast<uint32_t>(std::min<uint64_t>(s.slow_peak, 0xFFFFFFFFu));
  fill_tile_facts(p);
  return p;
}

}  // namespace tigris::plan
