// A real int8 model (vww_96_int8, TFLite Micro all-tensor dump) through the banded paths:
// its convolutions as stripes, as 2-D tiles, and as line-buffered and plain chains, run in
// an arena of exactly tigris_fast_arena_required() — outputs byte for byte TFLite Micro's,
// the fast peak exactly the plan's scheduled peak (the band cost model's figure).
#include <algorithm>

#include "bands_fixture.h"
#include "kernels/s8/s8_params.h"
#include "unit/kernels_s8/tflm_dump.h"

using namespace bandtest;
using s8test::Dump;
using s8test::DumpOp;
using s8test::DumpTensor;

namespace {

uint16_t quant(PlanDesc &p, float scale, int32_t zp, std::vector<int32_t> m = {1 << 30}, std::vector<int32_t> s = {1})
{
    QuantDesc q;
    q.scale = scale;
    q.zero_point = zp;
    q.multipliers = std::move(m);
    q.shifts = std::move(s);
    p.quant.push_back(q);
    return (uint16_t)(p.quant.size() - 1);
}

uint16_t layer_quant(PlanDesc &p, const DumpTensor &in, const DumpTensor &w, const DumpTensor &out, bool fc)
{
    std::vector<int32_t> m, s;
    for (float ws : w.scales) {
        int32_t mm = 0;
        int ss = 0;
        tigris_s8::layer_multiplier(in.scales[0], ws, out.scales[0], fc && w.scales.size() == 1, &mm, &ss);
        m.push_back(mm);
        s.push_back(ss);
    }
    return quant(p, out.scales[0], out.zero_points[0], m, s);
}

// The op of a dumped operator (conv-like ops: weights, bias, geometry, fused ReLU).
bool make_op(const Dump &d, const DumpOp &op, PlanDesc &p, OpDesc *o, bool *conv_like)
{
    const DumpTensor &xi = d.tensor(op.inputs[0]);
    o->name = op.op + std::to_string(op.index);
    *conv_like = op.op == "CONV_2D" || op.op == "DEPTHWISE_CONV_2D" || op.op == "FULLY_CONNECTED";
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
        o->spatial = window((uint8_t)w.shape[1], (uint8_t)w.shape[2], (uint8_t)gh.stride, (uint8_t)gw.stride,
                            (uint16_t)gh.pad_a, (uint16_t)gh.pad_b, (uint16_t)gw.pad_a, (uint16_t)gw.pad_b, 1, 1,
                            dw ? (uint16_t)xi.shape[3] : 1);
        o->fused_act = TIGRIS_ACT_RELU;
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

// One stage per operator.
bool build_plan(const Dump &d, PlanDesc *p)
{
    std::vector<int> tensor_of(d.tensors.size(), -1);
    auto tensor = [&](int i, uint16_t q) {
        if (tensor_of[(size_t)i] < 0) {
            const DumpTensor &t = d.tensor(i);
            tensor_of[(size_t)i] = add_tensor(*p, t.name, t.shape, 0, TIGRIS_DTYPE_INT8, q);
        }
        return (uint16_t)tensor_of[(size_t)i];
    };
    for (const DumpOp &op : d.ops) {
        const DumpTensor &xi = d.tensor(op.inputs[0]), &yo = d.tensor(op.outputs[0]);
        const uint16_t in = tensor(op.inputs[0], quant(*p, xi.scales[0], xi.zero_points[0]));
        OpDesc o;
        bool conv_like = false;
        if (!make_op(d, op, *p, &o, &conv_like)) return false;
        const uint16_t q = conv_like ? layer_quant(*p, xi, d.tensor(op.inputs[1]), yo, op.op == "FULLY_CONNECTED")
                                     : quant(*p, yo.scales[0], yo.zero_points[0]);
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
    p->model_name = "vww_96_int8";
    return true;
}

bool is_conv(const PlanDesc &p, size_t s)
{
    const uint8_t t = p.ops[p.stages[s].ops[0]].type;
    return t == TIGRIS_OP_CONV || t == TIGRIS_OP_DEPTHWISE;
}

// Every convolution stage banded by `rec`.
PlanDesc tiled(PlanDesc p, const tigris_tile_plan_v11_t &rec)
{
    for (size_t s = 0; s < p.stages.size(); ++s) {
        if (!is_conv(p, s)) continue;
        p.tile_plans.push_back(rec);
        p.stages[s].tile_plan = (uint16_t)(p.tile_plans.size() - 1);
    }
    tigris::plan::fill_tile_facts(p);
    return p;
}

// Runs of convolution stages chained `len` at a time.
PlanDesc chained(PlanDesc p, uint16_t len, uint16_t tile_h, bool lb)
{
    for (size_t s = 0; s + 1 < p.stages.size();) {
        uint16_t n = 0;
        while (n < len && s + n < p.stages.size() && is_conv(p, s + n)) ++n;
        if (n >= 2) chain_stages(p, (uint16_t)s, n, tile_h, lb);
        s += n > 0 ? n : 1;
    }
    return p;
}

void check_against_tflm(const PlanDesc &desc, const char *what, uint32_t *peak)
{
    PlanDesc p = desc;
    set_scheduled_peak(p);
    *peak = p.scheduled_peak;
    const std::string dir = std::string(TIGRIS_MODELS_DIR) + "/refs/vww_96_int8.tflm/";
    for (int k = 0; k < 2; ++k) {
        std::string descr;
        std::vector<int64_t> shape;
        Bytes x, expect;
        ASSERT_TRUE(s8test::read_npy(dir + "input_" + std::to_string(k) + ".npy", &descr, &shape, &x));
        ASSERT_TRUE(s8test::read_npy(dir + "output_" + std::to_string(k) + ".npy", &descr, &shape, &expect));
        RunOptions o;
        o.slow = 1u << 20;
        o.trace = false;
        const RunResult r = run_plan(p, {x}, o);
        ASSERT_EQ(r.rc, TIGRIS_EXEC_OK) << what << ": " << tigris_exec_error_str(r.rc);
        EXPECT_TRUE(r.outputs[0] == expect) << what << " input " << k << " differs from TFLite Micro";
        EXPECT_EQ(r.fast_peak, p.scheduled_peak) << what;
    }
}

TEST(TflmModel, Vww96Int8BandedBitExact)
{
    if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
    Dump d;
    std::string error;
    if (!s8test::load_dump(TIGRIS_MODELS_DIR, "vww_96_int8", &d, &error)) GTEST_SKIP() << error;
    PlanDesc base;
    ASSERT_TRUE(build_plan(d, &base));
    uint32_t whole = 0, stripes = 0, hw = 0, chains = 0, lb = 0;
    check_against_tflm(base, "whole", &whole);
    check_against_tflm(tiled(base, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE)), "stripes", &stripes);
    check_against_tflm(tiled(base, record(TIGRIS_TILE_AXIS_HW, 3, TIGRIS_BAND_KIND_HW, 5)), "hw", &hw);
    check_against_tflm(chained(base, 4, 2, false), "chains", &chains);
    check_against_tflm(chained(base, 4, 2, true), "line-buffered chains", &lb);
    EXPECT_LT(stripes, whole);
    EXPECT_LT(hw, whole);
    EXPECT_LT(chains, whole);
    RecordProperty("peak_whole", (int)whole);
    RecordProperty("peak_stripes", (int)stripes);
    RecordProperty("peak_hw", (int)hw);
    RecordProperty("peak_chains", (int)chains);
    RecordProperty("peak_chains_lb", (int)lb);
    printf("vww_96_int8 fast peak: whole %u, stripes(2) %u, hw(3x5) %u, chains(4, h2) %u, lb %u\n", whole, stripes, hw,
           chains, lb);
}

}  // namespace
