// Single-layer checks against TensorFlow Lite Micro's reference kernels: every operator
// of the int8 models with an all-tensor dump (refs/<model>.tflm/tensors_seed0) is built
// as a one-op plan from the dumped input, constants and quantization, run through the
// int8 kernels (whole, and banded for window ops), and compared byte for byte with the
// tensor TFLM produced. Padding and strides are recovered from the shapes (SAME when it
// fits, as these models use); a wrong guess could only make a layer fail, not pass.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "banding.h"
#include "s8_fixture.h"
#include "tflm_dump.h"

using namespace s8test;

namespace {

Bytes as_bytes(const std::vector<uint8_t>& v) { return Bytes(v.begin(), v.end()); }

// Fused activation from the TFLite tensor name (these models name ReLU/ReLU6 outputs).
void fused_clamp(const DumpTensor& out, tigris_op_t* op) {
  const int32_t zp = out.zero_points.at(0);
  if (out.name.find("Relu6") != std::string::npos) {
    op->act_min = (int8_t)std::max(-128, zp);
    op->act_max = (int8_t)std::min<long>(127, zp + std::lround(6.0f / out.scales.at(0)));
  } else if (out.name.find("Relu") != std::string::npos) {
    op->act_min = (int8_t)std::max(-128, zp);
  }
}

struct LayerResult {
  bool built = false;
  int rc = -1;
  size_t mismatches = 0, elements = 0;
  bool banded_ok = true;  // banded runs equal the dump too
};

uint16_t act_tensor(PlanFixture& f, const DumpTensor& t) {
  return f.tensor(t.shape, TIGRIS_DTYPE_INT8, f.quant(t.scales.at(0), t.zero_points.at(0)));
}

size_t count_diff(const Bytes& a, const std::vector<uint8_t>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); i++) n += (uint8_t)a[i] != b[i];
  return n + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

// Builds and runs one dumped operator; banded variants for window ops.
LayerResult run_layer(const Dump& d, const DumpOp& op) {
  LayerResult r;
  PlanFixture f;
  const DumpTensor& xi = d.tensor(op.inputs.at(0));
  const DumpTensor& yo = d.tensor(op.outputs.at(0));
  const uint16_t in = act_tensor(f, xi);
  uint16_t out = 0, o = 0;
  bool spatial = false;
  if (op.op == "CONV_2D" || op.op == "DEPTHWISE_CONV_2D") {
    const DumpTensor& w = d.tensor(op.inputs.at(1));
    const bool dw = op.op == "DEPTHWISE_CONV_2D";
    std::vector<float> wscales = w.scales;
    const int32_t kh = w.shape[1], kw = w.shape[2];
    AxisGeom gh, gw;
    if (!infer_axis(xi.shape[1], kh, yo.shape[1], &gh) || !infer_axis(xi.shape[2], kw, yo.shape[2], &gw)) return r;
    out = f.tensor(yo.shape, TIGRIS_DTYPE_INT8, f.conv_quant(xi.scales[0], wscales, yo.scales[0], yo.zero_points[0]));
    o = f.op(dw ? TIGRIS_OP_DEPTHWISE : TIGRIS_OP_CONV, {in}, {out});
    tigris_op_t& rec = f.op_record(o);
    rec.weight_idx = f.weight_i8(as_bytes(d.data(w.index)));
    if (op.inputs.size() > 2 && op.inputs[2] >= 0)
      rec.bias_idx = f.weight(d.data(op.inputs[2]).data(), d.data(op.inputs[2]).size());
    rec.spatial.kernel_h = (uint8_t)kh;
    rec.spatial.kernel_w = (uint8_t)kw;
    rec.spatial.stride_h = (uint8_t)gh.stride;
    rec.spatial.stride_w = (uint8_t)gw.stride;
    rec.spatial.pad_top = (uint16_t)gh.pad_a;
    rec.spatial.pad_bottom = (uint16_t)gh.pad_b;
    rec.spatial.pad_left = (uint16_t)gw.pad_a;
    rec.spatial.pad_right = (uint16_t)gw.pad_b;
    rec.spatial.dilation_h = rec.spatial.dilation_w = 1;
    rec.spatial.group = dw ? (uint16_t)xi.shape[3] : 1;
    fused_clamp(yo, &rec);
    spatial = true;
  } else if (op.op == "AVERAGE_POOL_2D") {
    // Both models pool the whole map (VALID, filter = input): as AVG_POOL here; the
    // GLOBAL_AVG form is checked in TflmGlobalAveragePool below.
    out = act_tensor(f, yo);
    o = f.op(TIGRIS_OP_AVG_POOL, {in}, {out});
    tigris_op_t& rec = f.op_record(o);
    rec.spatial.kernel_h = (uint8_t)xi.shape[1];
    rec.spatial.kernel_w = (uint8_t)xi.shape[2];
    rec.spatial.stride_h = rec.spatial.stride_w = 1;
    if (yo.shape[1] != 1 || yo.shape[2] != 1) return r;
    spatial = true;
  } else if (op.op == "RESHAPE") {
    out = act_tensor(f, yo);
    o = f.op(TIGRIS_OP_RESHAPE, {in}, {out});
  } else if (op.op == "FULLY_CONNECTED") {
    const DumpTensor& w = d.tensor(op.inputs.at(1));
    out = f.tensor(yo.shape, TIGRIS_DTYPE_INT8,
                   f.conv_quant(xi.scales[0], w.scales, yo.scales[0], yo.zero_points[0], true));
    o = f.op(TIGRIS_OP_FULLY_CONN, {in}, {out});
    f.op_record(o).weight_idx = f.weight_i8(as_bytes(d.data(w.index)));
    if (op.inputs.size() > 2 && op.inputs[2] >= 0)
      f.op_record(o).bias_idx = f.weight(d.data(op.inputs[2]).data(), d.data(op.inputs[2]).size());
    fused_clamp(yo, &f.op_record(o));
  } else if (op.op == "SOFTMAX") {
    out = act_tensor(f, yo);
    o = f.op(TIGRIS_OP_SOFTMAX, {in}, {out});
  } else {
    return r;
  }
  f.finalize();
  r.built = true;
  const Bytes x = as_bytes(d.data(xi.index));
  const std::vector<uint8_t> expect = d.data(yo.index);
  Bytes y(expect.size(), 0);
  f.bind(in, (void*)x.data());
  f.bind(out, y.data());
  r.rc = f.run(o);
  r.elements = expect.size();
  r.mismatches = count_diff(y, expect);
  if (spatial) {
    const BandOptions variants[] = {{1, 0, 0, 0}, {3, 0, 2, 1}, {2, 3, 1, 0}};
    for (const BandOptions& b : variants) {
      Bytes yb;
      if (!run_spatial_banded(f, o, in, x, out, b, &yb) || count_diff(yb, expect) != 0) r.banded_ok = false;
    }
  }
  return r;
}

void check_model(const char* model, size_t expected_ops) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
  Dump d;
  std::string error;
  if (!load_dump(TIGRIS_MODELS_DIR, model, &d, &error)) GTEST_SKIP() << error;
  ASSERT_EQ(d.ops.size(), expected_ops);
  for (const DumpOp& op : d.ops) {
    const LayerResult r = run_layer(d, op);
    ASSERT_TRUE(r.built) << model << " op " << op.index << " " << op.op << ": layer not recognized";
    EXPECT_EQ(r.rc, 0) << model << " op " << op.index << " " << op.op;
    EXPECT_EQ(r.mismatches, 0u) << model << " op " << op.index << " " << op.op << ": " << r.mismatches << " of "
                                << r.elements << " bytes differ from TFLite Micro";
    EXPECT_TRUE(r.banded_ok) << model << " op " << op.index << " " << op.op << ": banded run differs";
  }
}

}  // namespace

TEST(TflmLayers, Vww96Int8EveryOperatorBitExact) { check_model("vww_96_int8", 31); }

TEST(TflmLayers, KwsEveryOperatorBitExact) { check_model("kws_ref_model", 13); }

// The models' whole-map AVERAGE_POOL_2D as GLOBAL_AVG with POOL_ROUNDING bit0 (the
// compiler's form), whole and banded by input rows; and as the default TFLite MEAN,
// which rounds differently and so must not be what POOL_ROUNDING selects.
TEST(TflmLayers, GlobalAveragePoolWithPoolRounding) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  for (const char* model : {"vww_96_int8", "kws_ref_model"}) {
    Dump d;
    std::string error;
    if (!load_dump(TIGRIS_MODELS_DIR, model, &d, &error)) GTEST_SKIP() << error;
    for (const DumpOp& op : d.ops) {
      if (op.op != "AVERAGE_POOL_2D") continue;
      const DumpTensor &xi = d.tensor(op.inputs[0]), &yo = d.tensor(op.outputs[0]);
      PlanFixture f;
      const uint16_t in = act_tensor(f, xi), out = act_tensor(f, yo);
      const uint16_t o = f.op(TIGRIS_OP_GLOBAL_AVG, {in}, {out});
      f.attr(o, TIGRIS_ATTR_POOL_ROUNDING, {1});
      f.finalize();
      const Bytes x = as_bytes(d.data(xi.index));
      const std::vector<uint8_t> expect = d.data(yo.index);
      Bytes y(expect.size());
      f.bind(in, (void*)x.data());
      f.bind(out, y.data());
      ASSERT_EQ(f.run(o), 0);
      EXPECT_EQ(count_diff(y, expect), 0u) << model;
      for (int32_t band : {1, 2, 4}) {
        Bytes yb;
        ASSERT_TRUE(run_reduce_banded(f, o, in, x, out, band, &yb));
        EXPECT_EQ(count_diff(yb, expect), 0u) << model << " band " << band;
      }
    }
  }
}
