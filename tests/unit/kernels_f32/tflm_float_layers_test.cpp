// Single-layer checks of the float kernels against TensorFlow Lite Micro's reference kernels:
// every operator of vww_96_float (refs/vww_96_float.tflm/tensors_seed0) is built as a one-op
// plan from the dumped input and constants (TFLite's weight layouts are ours: conv OHWI,
// depthwise [1,KH,KW,C*m], FC [OC,IC]), run whole and in row bands, and compared with the
// tensor TFLM produced. Strides and SAME/VALID padding are recovered from the shapes; a wrong
// guess could only make a layer fail.
#include <cstring>
#include <string>

#include "runtime/src/plan/op_rules.h"
#include "unit/kernels_f32/kernel_test_util.h"
#include "unit/kernels_s8/tflm_dump.h"

namespace {

using fixture::Plan;
using s8test::Dump;
using s8test::DumpOp;
using s8test::DumpTensor;

std::vector<float> floats(const Dump& d, int i) {
  std::vector<uint8_t> b = d.data(i);
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

struct Axis {
  int stride = 1, pad_a = 0, pad_b = 0;
};

bool infer_axis(int in, int k, int out, Axis* a) {
  for (int s = 1; s <= 4; ++s) {
    if (out == (in + s - 1) / s) {
      int total = std::max((out - 1) * s + k - in, 0);
      *a = {s, total / 2, total - total / 2};
      return true;
    }
    if (in >= k && out == (in - k + s) / s) {
      *a = {s, 0, 0};
      return true;
    }
  }
  return false;
}

uint8_t fused_from_name(const std::string& name) {
  if (name.find("Relu6") != std::string::npos) return TIGRIS_ACT_RELU6;
  if (name.find("Relu") != std::string::npos) return TIGRIS_ACT_RELU;
  return TIGRIS_ACT_NONE;
}

// Output rows of a spatial op in bands of `band` rows (one junk row before each input band).
std::vector<float> run_banded(Plan& p, uint16_t op, uint16_t in, uint16_t out, const std::vector<float>& x,
                              const std::vector<int32_t>& is, const std::vector<int32_t>& os, int band) {
  tigris_mem_t* m = p.mem();
  const tigris_spatial_t sp = p.o(op).spatial;
  int ek = (sp.kernel_h - 1) * (sp.dilation_h ? sp.dilation_h : 1) + 1, row_in = is[2] * is[3], row_out = os[2] * os[3];
  std::vector<float> result;
  for (int o0 = 0; o0 < os[1]; o0 += band) {
    int o1 = std::min(o0 + band, os[1]);
    kt::Window w = kt::window(o0, o1, sp.stride_h, ek, sp.pad_top, is[1]);
    auto ib = kt::rows(x, is[0], is[1], row_in, w.i0, w.i1, 1);
    std::vector<float> ob((size_t)(o1 - o0) * row_out);
    p.bind(in, ib.data());
    p.bind(out, ob.data());
    m->tile = tigris_tile_ctx_t{};
    m->tile.active = 1, m->tile.in_h = w.i1 - w.i0, m->tile.out_h = o1 - o0, m->tile.in_row_start = 1;
    m->tile.pad_top = w.pad_top, m->tile.pad_bottom = w.pad_bottom;
    if (kt::run(p, op, m) != 0) return {};
    result.insert(result.end(), ob.begin(), ob.end());
  }
  return result;
}

// Builds one dumped operator; false when it is not one this test knows.
bool build(const Dump& d, const DumpOp& dop, Plan& p, uint16_t* op, uint16_t* in, uint16_t* out, bool* spatial) {
  const DumpTensor &xi = d.tensor(dop.inputs.at(0)), &yo = d.tensor(dop.outputs.at(0));
  *in = p.tensor(xi.shape);
  *out = p.tensor(yo.shape);
  *spatial = false;
  if (dop.op == "CONV_2D" || dop.op == "DEPTHWISE_CONV_2D") {
    const DumpTensor& w = d.tensor(dop.inputs.at(1));
    bool dw = dop.op == "DEPTHWISE_CONV_2D";
    Axis ah, aw;
    if (!infer_axis(xi.shape[1], w.shape[1], yo.shape[1], &ah) ||
        !infer_axis(xi.shape[2], w.shape[2], yo.shape[2], &aw))
      return false;
    *op = p.op(dw ? TIGRIS_OP_DEPTHWISE : TIGRIS_OP_CONV, {*in}, {*out});
    tigris_op_t& o = p.o(*op);
    o.weight_idx = p.weight(floats(d, w.index));
    if (dop.inputs.size() > 2 && dop.inputs[2] >= 0) o.bias_idx = p.weight(floats(d, dop.inputs[2]));
    o.spatial.kernel_h = (uint8_t)w.shape[1], o.spatial.kernel_w = (uint8_t)w.shape[2];
    o.spatial.stride_h = (uint8_t)ah.stride, o.spatial.stride_w = (uint8_t)aw.stride;
    o.spatial.pad_top = (uint16_t)ah.pad_a, o.spatial.pad_bottom = (uint16_t)ah.pad_b;
    o.spatial.pad_left = (uint16_t)aw.pad_a, o.spatial.pad_right = (uint16_t)aw.pad_b;
    o.spatial.group = dw ? (uint16_t)xi.shape[3] : 1;
    o.fused_act = fused_from_name(yo.name);
    *spatial = true;
  } else if (dop.op == "AVERAGE_POOL_2D") {  // these models pool the whole map
    *op = p.op(TIGRIS_OP_AVG_POOL, {*in}, {*out});
    tigris_op_t& o = p.o(*op);
    o.spatial.kernel_h = (uint8_t)xi.shape[1], o.spatial.kernel_w = (uint8_t)xi.shape[2];
    o.spatial.stride_h = o.spatial.stride_w = 1;
    *spatial = yo.shape[1] == 1 && yo.shape[2] == 1;
    return *spatial;
  } else if (dop.op == "RESHAPE") {
    *op = p.op(TIGRIS_OP_RESHAPE, {*in}, {*out});
  } else if (dop.op == "FULLY_CONNECTED") {
    *op = p.op(TIGRIS_OP_FULLY_CONN, {*in}, {*out});
    p.o(*op).weight_idx = p.weight(floats(d, dop.inputs.at(1)));
    if (dop.inputs.size() > 2 && dop.inputs[2] >= 0) p.o(*op).bias_idx = p.weight(floats(d, dop.inputs[2]));
    p.o(*op).fused_act = fused_from_name(yo.name);
  } else if (dop.op == "SOFTMAX") {
    *op = p.op(TIGRIS_OP_SOFTMAX, {*in}, {*out});
  } else {
    return false;
  }
  return true;
}

TEST(TflmFloatLayers, Vww96FloatEveryOperatorWholeAndBanded) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
  Dump d;
  std::string error;
  if (!s8test::load_dump(TIGRIS_MODELS_DIR, "vww_96_float", &d, &error)) GTEST_SKIP() << error;
  ASSERT_EQ(d.ops.size(), 31u);
  for (const DumpOp& dop : d.ops) {
    Plan p;
    uint16_t op = 0, in = 0, out = 0;
    bool spatial = false;
    ASSERT_TRUE(build(d, dop, p, &op, &in, &out, &spatial)) << "op " << dop.index << " " << dop.op;
    const DumpTensor &xi = d.tensor(dop.inputs[0]), &yo = d.tensor(dop.outputs[0]);
    auto x = floats(d, xi.index), want = floats(d, yo.index);
    tigris_mem_t* m = p.mem();
    p.set(in, x);
    ASSERT_EQ(kt::run(p, op, m), 0) << "op " << dop.index << " " << dop.op;
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK)
        << "op " << dop.index << " " << dop.op << " breaks its operator rule";
    auto got = p.get<float>(out);
    float worst = 0.0f;
    for (size_t i = 0; i < want.size(); ++i)
      worst = std::max(worst, std::fabs(got[i] - want[i]) / (1.0f + std::fabs(want[i])));
    EXPECT_LT(worst, 2e-5f) << "op " << dop.index << " " << dop.op;
    if (spatial && yo.shape[1] > 1) {
      for (int band : {1, 3}) {
        auto banded = run_banded(p, op, in, out, x, xi.shape, yo.shape, band);
        ASSERT_EQ(banded.size(), got.size()) << "op " << dop.index << " band " << band;
        for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(banded[i], got[i]) << "op " << dop.index << " band " << band;
      }
    }
  }
}

}  // namespace
