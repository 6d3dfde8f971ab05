#include "tflm_plan.h"

#include <algorithm>

#include "unit/kernels_s8/tflm_quant.h"

namespace bandtest {
namespace {

using s8test::Dump;
using s8test::DumpOp;
using s8test::DumpTensor;

// The op of a dumped operator (conv-like ops: weights, bias, geometry, fused ReLU).
bool make_op(const Dump& d, const DumpOp& op, PlanDesc& p, OpDesc* o) {
  const DumpTensor& xi = d.tensor(op.inputs[0]);
  o->name = op.op + std::to_string(op.index);
  if (op.op == "CONV_2D" || op.op == "DEPTHWISE_CONV_2D") {
    const DumpTensor &w = d.tensor(op.inputs[1]), &yo = d.tensor(op.outputs[0]);
    s8test::AxisGeom gh, gw;
    if (!s8test::infer_axis(xi.shape[1], w.shape[1], yo.shape[1], &gh) ||
        !s8test::infer_axis(xi.shape[2], w.shape[2], yo.shape[2], &gw))
      return false;
    const bool dw = op.op == "DEPTHWISE_CONV_2D";
    o->type = dw ? TIGRIS_OP_DEPTHWISE : TIGRIS_OP_CONV;
    o->weight = add_weight_bytes(p, d.data(w.index));
    o->bias = add_weight_bytes(p, d.data(op.inputs[2]));
    o->spatial =
        window((uint8_t)w.shape[1], (uint8_t)w.shape[2], (uint8_t)gh.stride, (uint8_t)gw.stride, (uint16_t)gh.pad_a,
               (uint16_t)gh.pad_b, (uint16_t)gw.pad_a, (uint16_t)gw.pad_b, 1, 1, dw ? (uint16_t)xi.shape[3] : 1);
    o->fused_act = TIGRIS_ACT_RELU;  // every conv of these models is followed by ReLU
    o->act_min = (int8_t)std::max(-128, yo.zero_points[0]);
  } else if (op.op == "AVERAGE_POOL_2D") {
    o->type = TIGRIS_OP_AVG_POOL;
    o->spatial = window((uint8_t)xi.shape[1], (uint8_t)xi.shape[2], 1, 1, 0, 0, 0, 0);
    o->spatial.group = 0;
  } else if (op.op == "RESHAPE") {
    o->type = TIGRIS_OP_RESHAPE;
  } else if (op.op == "FULLY_CONNECTED") {
    o->type = TIGRIS_OP_FULLY_CONN;
    o->weight = add_weight_bytes(p, d.data(op.inputs[1]));
    o->bias = add_weight_bytes(p, d.data(op.inputs[2]));
  } else if (op.op == "SOFTMAX") {
    o->type = TIGRIS_OP_SOFTMAX;
  } else {
    return false;
  }
  return true;
}

bool is_conv(const PlanDesc& p, size_t s) {
  const uint8_t t = p.ops[p.stages[s].ops[0]].type;
  return t == TIGRIS_OP_CONV || t == TIGRIS_OP_DEPTHWISE;
}

}  // namespace

bool tflm_model_plan(const Dump& d, const std::string& name, PlanDesc* p) {
  std::vector<int> tensor_of(d.tensors.size(), -1);
  auto tensor = [&](int i, uint16_t q) {
    if (tensor_of[(size_t)i] < 0) {
      const DumpTensor& t = d.tensor(i);
      tensor_of[(size_t)i] = add_tensor(*p, t.name, t.shape, 0, TIGRIS_DTYPE_INT8, q);
    }
    return (uint16_t)tensor_of[(size_t)i];
  };
  for (const DumpOp& op : d.ops) {
    const DumpTensor &xi = d.tensor(op.inputs[0]), &yo = d.tensor(op.outputs[0]);
    const uint16_t in = tensor(op.inputs[0], s8test::tflm_quant(*p, xi.scales[0], xi.zero_points[0]));
    OpDesc o;
    if (!make_op(d, op, *p, &o)) return false;
    const bool fc = o.type == TIGRIS_OP_FULLY_CONN;
    const bool conv_like = o.type == TIGRIS_OP_CONV || o.type == TIGRIS_OP_DEPTHWISE || fc;
    const uint16_t q = conv_like ? s8test::tflm_layer_quant(*p, xi, d.tensor(op.inputs[1]), yo, fc)
                                 : s8test::tflm_quant(*p, yo.scales[0], yo.zero_points[0]);
    const uint16_t out = tensor(op.outputs[0], q);
    o.inputs = {in};
    o.outputs = {out};
    p->ops.push_back(o);
    add_stage(*p, {(uint16_t)(p->ops.size() - 1)}, {in}, {out});
  }
  const uint16_t in = (uint16_t)tensor_of[(size_t)d.ops.front().inputs[0]];
  const uint16_t out = (uint16_t)tensor_of[(size_t)d.ops.back().outputs[0]];
  p->tensors[in].flags = TIGRIS_TENSOR_MODEL_INPUT;
  p->tensors[out].flags = TIGRIS_TENSOR_MODEL_OUTPUT;
  p->model_inputs = {in};
  p->model_outputs = {out};
  p->model_name = name;
  return true;
}

PlanDesc tile_convs(PlanDesc p, const tigris_tile_plan_v11_t& rec) {
  for (size_t s = 0; s < p.stages.size(); ++s) {
    if (!is_conv(p, s)) continue;
    p.tile_plans.push_back(rec);
    p.stages[s].tile_plan = (uint16_t)(p.tile_plans.size() - 1);
  }
  tigris::plan::fill_tile_facts(p);
  return p;
}

PlanDesc chain_convs(PlanDesc p, uint16_t len, uint16_t tile_h, bool line_buffered) {
  for (size_t s = 0; s + 1 < p.stages.size();) {
    uint16_t n = 0;
    while (n < len && s + n < p.stages.size() && is_conv(p, s + n)) ++n;
    if (n >= 2) chain_stages(p, (uint16_t)s, n, tile_h, line_buffered);
    s += n > 0 ? n : 1;
  }
  return p;
}

}  // namespace bandtest
