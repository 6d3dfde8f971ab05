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

TensorMap add_tensors(const ir::Graph& g, PlanDesc& p) {
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

void add_ops(const ir::Graph& g, const TensorMap& m, WeightTable& weights, PlanDesc& p) {
  for (const ir::Node& n : g.nodes) {
    LoweredOp lo = lower_node(g, n, weights);
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

void add_stages(const schedule::Schedule& s, const TensorMap& m, PlanDesc& p) {
  for (size_t k = 0; k < s.stages.size(); ++k) {
    const schedule::Stage& st = s.stages[k];
    StageDesc d;
    for (int i = st.first; i < st.end; ++i) d.ops.push_back(static_cast<uint16_t>(i));
    d.inputs = mapped(m, st.inputs);
    d.outputs = mapped(m, st.outputs);
    d.peak_bytes = static_cast<uint32_t>(std::min<uint64_t>(st.peak_bytes, 0xFFFFFFFFu));
    if (st.form == schedule::StageForm::Banded) {
      p.tile_plans.push_back(tile_record(st));
      d.tile_plan = to_u16(p.tile_plans.size() - 1, "tile records");
    } else if (st.form == schedule::StageForm::Chain) {
      d.chain_id = to_u16(static_cast<size_t>(st.chain_head), "stages");
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

PlanDesc describe_plan(const ir::Graph& g, const schedule::Schedule& s, const EmitOptions& o) {
  PlanDesc p;
  p.model_name = o.model_name;
  p.budget = o.budget;
  p.peak = o.unscheduled_peak;
  p.flags = o.xip ? TIGRIS_FLAG_XIP : 0;
  TensorMap m = add_tensors(g, p);
  WeightTable weights;
  add_ops(g, m, weights, p);
  p.weights = weights.take();
  add_stages(s, m, p);
  p.model_inputs = mapped(m, g.inputs);
  p.model_outputs = mapped(m, g.outputs);
  add_state(g, m, p);
  p.scheduled_peak = static_cast<uint32_t>(std::min<uint64_t>(s.scheduled_peak, 0xFFFFFFFFu));
  p.slow_peak = static_cast<uint32_t>(std::min<uint64_t>(s.slow_peak, 0xFFFFFFFFu));
  fill_tile_facts(p);
  return p;
}

}  // namespace tigris::plan
