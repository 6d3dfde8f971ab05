// Whole int8 models through the real path: a plan written by the plan writer from the
// TFLite Micro dump's constants and quantization (one stage per operator), loaded by the
// runtime loader, run by the executor with tigris_dispatch_kernel_s8, and compared byte
// for byte with TFLite Micro's outputs for every recorded input (output_<k>.npy).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "compiler/plan/plan_writer.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"
#include "unit/kernels_s8/tflm_dump.h"
#include "unit/kernels_s8/tflm_quant.h"

using namespace s8test;
using tigris::plan::PlanDesc;

namespace {

uint16_t weight(PlanDesc& p, const std::vector<uint8_t>& bytes) {
  tigris::plan::WeightDesc w;
  w.name = "w";
  w.name.append(std::to_string(p.weights.size()));
  w.data = bytes;
  p.weights.push_back(w);
  return (uint16_t)(p.weights.size() - 1);
}

// The plan of a dumped int8 model; false when an operator is not one of the expected kinds.
bool build_plan(const Dump& d, PlanDesc* p, uint16_t* model_in, uint16_t* model_out, std::string* why) {
  std::vector<int> tensor_of(d.tensors.size(), -1);
  auto act = [&](int i) -> uint16_t {
    if (tensor_of[i] < 0) {
      const DumpTensor& t = d.tensor(i);
      tigris::plan::TensorDesc td;
      td.name = t.name;
      td.shape = t.shape;
      td.dtype = TIGRIS_DTYPE_INT8;
      td.quant = tflm_quant(*p, t.scales[0], t.zero_points[0]);
      p->tensors.push_back(td);
      tensor_of[i] = (int)p->tensors.size() - 1;
    }
    return (uint16_t)tensor_of[i];
  };
  uint32_t peak = 0;
  for (const DumpOp& op : d.ops) {
    const DumpTensor &xi = d.tensor(op.inputs[0]), &yo = d.tensor(op.outputs[0]);
    tigris::plan::OpDesc o;
    o.name = op.op;
    o.name.append(std::to_string(op.index));
    const uint16_t in = act(op.inputs[0]);
    if (op.op == "CONV_2D" || op.op == "DEPTHWISE_CONV_2D") {
      const DumpTensor& w = d.tensor(op.inputs[1]);
      AxisGeom gh, gw;
      if (!infer_axis(xi.shape[1], w.shape[1], yo.shape[1], &gh) ||
          !infer_axis(xi.shape[2], w.shape[2], yo.shape[2], &gw)) {
        *why = o.name;
        why->append(": geometry");
        return false;
      }
      tigris::plan::TensorDesc td;
      td.name = yo.name;
      td.shape = yo.shape;
      td.dtype = TIGRIS_DTYPE_INT8;
      td.quant = tflm_layer_quant(*p, xi, w, yo, false);
      p->tensors.push_back(td);
      tensor_of[op.outputs[0]] = (int)p->tensors.size() - 1;
      const bool dw = op.op == "DEPTHWISE_CONV_2D";
      o.type = dw ? TIGRIS_OP_DEPTHWISE : TIGRIS_OP_CONV;
      o.weight = weight(*p, d.data(w.index));
      o.bias = weight(*p, d.data(op.inputs[2]));
      o.spatial.kernel_h = (uint8_t)w.shape[1];
      o.spatial.kernel_w = (uint8_t)w.shape[2];
      o.spatial.stride_h = (uint8_t)gh.stride;
      o.spatial.stride_w = (uint8_t)gw.stride;
      o.spatial.pad_top = (uint16_t)gh.pad_a;
      o.spatial.pad_bottom = (uint16_t)gh.pad_b;
      o.spatial.pad_left = (uint16_t)gw.pad_a;
      o.spatial.pad_right = (uint16_t)gw.pad_b;
      o.spatial.dilation_h = o.spatial.dilation_w = 1;
      o.spatial.group = dw ? (uint16_t)xi.shape[3] : 1;
      o.fused_act = TIGRIS_ACT_RELU;  // every conv of these models is followed by ReLU
      o.act_min = (int8_t)std::max(-128, yo.zero_points[0]);
    } else if (op.op == "AVERAGE_POOL_2D") {
      o.type = TIGRIS_OP_AVG_POOL;
      o.spatial.kernel_h = (uint8_t)xi.shape[1];
      o.spatial.kernel_w = (uint8_t)xi.shape[2];
      o.spatial.stride_h = o.spatial.stride_w = 1;
      o.spatial.dilation_h = o.spatial.dilation_w = 1;
    } else if (op.op == "RESHAPE") {
      o.type = TIGRIS_OP_RESHAPE;
    } else if (op.op == "FULLY_CONNECTED") {
      const DumpTensor& w = d.tensor(op.inputs[1]);
      tigris::plan::TensorDesc td;
      td.name = yo.name;
      td.shape = yo.shape;
      td.dtype = TIGRIS_DTYPE_INT8;
      td.quant = tflm_layer_quant(*p, xi, w, yo, true);
      p->tensors.push_back(td);
      tensor_of[op.outputs[0]] = (int)p->tensors.size() - 1;
      o.type = TIGRIS_OP_FULLY_CONN;
      o.weight = weight(*p, d.data(w.index));
      o.bias = weight(*p, d.data(op.inputs[2]));
    } else if (op.op == "SOFTMAX") {
      o.type = TIGRIS_OP_SOFTMAX;
    } else {
      *why = "unexpected operator ";
      why->append(op.op);
      return false;
    }
    const uint16_t out = act(op.outputs[0]);
    o.inputs = {in};
    o.outputs = {out};
    p->ops.push_back(o);
    tigris::plan::StageDesc s;
    s.ops = {(uint16_t)(p->ops.size() - 1)};
    s.inputs = {in};
    s.outputs = {out};
    const uint32_t bytes = (uint32_t)(d.data(xi.index).size() + d.data(yo.index).size()) + 2 * TIGRIS_PLAN_MAX_ALIGN;
    s.peak_bytes = bytes;
    peak = std::max(peak, bytes);
    p->stages.push_back(s);
  }
  *model_in = (uint16_t)tensor_of[d.ops.front().inputs[0]];
  *model_out = (uint16_t)tensor_of[d.ops.back().outputs[0]];
  p->tensors[*model_in].flags = TIGRIS_TENSOR_MODEL_INPUT;
  p->tensors[*model_out].flags = TIGRIS_TENSOR_MODEL_OUTPUT;
  p->model_inputs = {*model_in};
  p->model_outputs = {*model_out};
  p->model_name = "tflm_int8";
  p->budget = p->scheduled_peak = peak;
  return true;
}

void check_model(const char* model) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
  Dump d;
  std::string error;
  if (!load_dump(TIGRIS_MODELS_DIR, model, &d, &error)) GTEST_SKIP() << error;
  PlanDesc desc;
  uint16_t in = 0, out = 0;
  ASSERT_TRUE(build_plan(d, &desc, &in, &out, &error)) << error;
  std::vector<uint8_t> bytes = tigris::plan::write_plan(desc);
  tigris_plan_t plan{};
  ASSERT_EQ(tigris_plan_load(bytes.data(), (uint32_t)bytes.size(), &plan), TIGRIS_OK);
  std::string dir = TIGRIS_MODELS_DIR;
  dir.append("/refs/").append(model).append(".tflm/");
  for (int k = 0; k < 8; k++) {
    std::string descr;
    std::vector<int64_t> shape;
    std::vector<uint8_t> x, expect;
    std::string in_path = dir, out_path = dir;
    in_path.append("input_").append(std::to_string(k)).append(".npy");
    out_path.append("output_").append(std::to_string(k)).append(".npy");
    ASSERT_TRUE(read_npy(in_path, &descr, &shape, &x));
    ASSERT_TRUE(read_npy(out_path, &descr, &shape, &expect));
    std::vector<uint8_t> fast(2 * desc.scheduled_peak + 1024), slow(1 << 20);
    std::vector<void*> ptrs(desc.tensors.size());
    tigris_mem_t mem{};
    ASSERT_EQ(tigris_mem_init(&mem, ptrs.data(), (uint16_t)ptrs.size(), fast.data(), (uint32_t)fast.size(), slow.data(),
                              (uint32_t)slow.size()),
              TIGRIS_MEM_OK);
    ASSERT_EQ(tigris_input_write(&plan, &mem, in, x.data(), (uint32_t)x.size()), TIGRIS_OK);
    tigris_exec_stats_t stats{};
    std::vector<uint8_t> workspace(tigris_executor_workspace_required(&plan));
    ASSERT_EQ(tigris_run_with_workspace_buffer(&plan, &mem, tigris_dispatch_kernel_s8, nullptr, &stats,
                                               workspace.data(), workspace.size()),
              TIGRIS_EXEC_OK)
        << model << " input " << k;
    std::vector<uint8_t> y(expect.size());
    ASSERT_EQ(tigris_output_read(&plan, &mem, out, y.data(), (uint32_t)y.size()), TIGRIS_OK);
    EXPECT_EQ(y, expect) << model << " input " << k << " differs from TFLite Micro";
    EXPECT_EQ(stats.stages_normal, d.ops.size());
  }
}

}  // namespace

TEST(TflmModels, Vww96Int8AllInputsBitExact) { check_model("vww_96_int8"); }

TEST(TflmModels, KwsAllInputsBitExact) { check_model("kws_ref_model"); }
