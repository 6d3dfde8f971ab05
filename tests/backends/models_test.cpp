// Whole int8 models through each adapter: vww_96_int8 and kws_ref_model (TFLite Micro
// all-tensor dumps: constants, quantization, reference inputs and outputs), one stage per
// operator, run untiled and banded (stripes, 2-D tiles, chains with and without line
// buffers) by the executor with the adapter's dispatcher. Every output must equal TFLite
// Micro's bytes (an independent reference) and the int8 reference kernels' run of the same
// plan; every convolution, pool and FC call must run natively (only RESHAPE and SOFTMAX fall
// back). The CMSIS-NN runs get exactly tigris_cmsis_nn_fast_arena_required() bytes.
#include <algorithm>

#include "backend_harness.h"
#include "bands_fixture.h"
#include "kernels/s8/s8_params.h"
#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_s8.h"
#include "unit/kernels_s8/tflm_dump.h"

using namespace bandtest;
using backtest::Backend;
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

// Output quant of a conv-like layer: TFLite's factors per weight scale.
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

bool make_op(const Dump &d, const DumpOp &op, PlanDesc &p, OpDesc *o)
{
    const DumpTensor &xi = d.tensor(op.inputs[0]);
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
        o->spatial = window((uint8_t)w.shape[1], (uint8_t)w.shape[2], (uint8_t)gh.stride, (uint8_t)gw.stride,
                            (uint16_t)gh.pad_a, (uint16_t)gh.pad_b, (uint16_t)gw.pad_a, (uint16_t)gw.pad_b, 1, 1,
                            dw ? (uint16_t)xi.shape[3] : 1);
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

// One stage per operator of the dump.
bool build_plan(const Dump &d, const char *name, PlanDesc *p)
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
        if (!make_op(d, op, *p, &o)) return false;
        const bool conv_like = o.type == TIGRIS_OP_CONV || o.type == TIGRIS_OP_DEPTHWISE || o.type == TIGRIS_OP_FULLY_CONN;
        const uint16_t q = conv_like ? layer_quant(*p, xi, d.tensor(op.inputs[1]), yo, o.type == TIGRIS_OP_FULLY_CONN)
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
    p->model_name = name;
    return true;
}

bool is_conv(const PlanDesc &p, size_t s)
{
    const uint8_t t = p.ops[p.stages[s].ops[0]].type;
    return t == TIGRIS_OP_CONV || t == TIGRIS_OP_DEPTHWISE;
}

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

struct ModelRun {
    int prepare = -99;
    tigris_exec_error_t rc = TIGRIS_EXEC_ERR_NULL;
    Bytes out;
    uint32_t native = 0, fallback = 0;
};

// One inference of a loaded plan: the reference kernels (b == nullptr) or an adapter
// prepared right after tigris_mem_init on an arena of exactly the size it asks for.
ModelRun run(const tigris_plan_t &plan, const Bytes &x, const Backend *b)
{
    ModelRun r;
    uint32_t fast = tigris_fast_arena_required(&plan);
#ifdef TIGRIS_HAS_CMSIS_NN
    if (b != nullptr && b->cmsis) fast = tigris_cmsis_nn_fast_arena_required(&plan);
#endif
    std::vector<uint8_t> fast_buf(fast + 64), slow_buf((1u << 20) + 64);
    uint8_t *fp = (uint8_t *)(((uintptr_t)fast_buf.data() + 63u) & ~(uintptr_t)63u);
    uint8_t *sp = (uint8_t *)(((uintptr_t)slow_buf.data() + 63u) & ~(uintptr_t)63u);
    std::vector<void *> ptrs(plan.header->num_tensors);
    tigris_mem_t mem{};
    EXPECT_EQ(tigris_mem_init(&mem, ptrs.data(), (uint16_t)ptrs.size(), fp, fast, sp, 1u << 20), TIGRIS_MEM_OK);
    r.prepare = b != nullptr ? b->prepare(&plan, &mem) : 0;
    if (r.prepare != 0) return r;
    EXPECT_EQ(tigris_input_write(&plan, &mem, plan.model_inputs[0], x.data(), (uint32_t)x.size()), TIGRIS_OK);
    const tigris_accel::Counters before = b != nullptr ? b->counters() : tigris_accel::Counters{};
    r.rc = tigris_run(&plan, &mem, b != nullptr ? b->dispatch : tigris_dispatch_kernel_s8, nullptr, nullptr);
    if (b != nullptr) {
        r.native = b->counters().native - before.native;
        r.fallback = b->counters().fallback - before.fallback;
    }
    const uint16_t t = plan.model_outputs[0];
    r.out.resize(plan.tensors[t].size_bytes);
    if (r.rc == TIGRIS_EXEC_OK) {
        EXPECT_EQ(tigris_output_read(&plan, &mem, t, r.out.data(), (uint32_t)r.out.size()), TIGRIS_OK);
    }
    if (b != nullptr) b->release(&mem);
    return r;
}

void check_config(const PlanDesc &desc, const std::string &model, const std::string &what, int inputs, bool banded)
{
    PlanDesc p = desc;
    set_scheduled_peak(p);
    Loaded f;
    load(p, &f);
    ASSERT_EQ(f.err, TIGRIS_OK) << what << ": " << tigris_error_str(f.err);
    const std::string dir = std::string(TIGRIS_MODELS_DIR) + "/refs/" + model + ".tflm/";
    for (int k = 0; k < inputs; ++k) {
        std::string descr;
        std::vector<int64_t> shape;
        Bytes x, expect;
        ASSERT_TRUE(s8test::read_npy(dir + "input_" + std::to_string(k) + ".npy", &descr, &shape, &x));
        ASSERT_TRUE(s8test::read_npy(dir + "output_" + std::to_string(k) + ".npy", &descr, &shape, &expect));
        const ModelRun ref = run(f.plan, x, nullptr);
        ASSERT_EQ(ref.rc, TIGRIS_EXEC_OK) << what << ": reference run";
        EXPECT_TRUE(ref.out == expect) << what << " input " << k << ": reference differs from TFLite Micro";
        for (const Backend &b : backtest::backends()) {
            const std::string name = std::string(b.name) + " " + model + " " + what + " input " + std::to_string(k);
            const ModelRun r = run(f.plan, x, &b);
            ASSERT_EQ(r.prepare, 0) << name;
            ASSERT_EQ(r.rc, TIGRIS_EXEC_OK) << name << ": " << tigris_exec_error_str(r.rc);
            EXPECT_TRUE(r.out == expect) << name << ": differs from TFLite Micro";
            EXPECT_TRUE(r.out == ref.out) << name << ": differs from the int8 reference kernels";
            EXPECT_EQ(r.fallback, 2u) << name << ": only RESHAPE and SOFTMAX may fall back";
            // Whole: one call per op; banded: one per band, so more.
            if (!banded) EXPECT_EQ(r.native, (uint32_t)(p.ops.size() - 2)) << name;
            else EXPECT_GT(r.native, (uint32_t)(p.ops.size() - 2)) << name << ": the convolutions were not banded";
        }
    }
}

void check_model(const char *model)
{
    BACKENDS_OR_SKIP();
    if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
    Dump d;
    std::string error;
    if (!s8test::load_dump(TIGRIS_MODELS_DIR, model, &d, &error)) GTEST_SKIP() << error;
    PlanDesc base;
    ASSERT_TRUE(build_plan(d, model, &base)) << model;
    check_config(base, model, "whole", 8, false);
    check_config(tiled(base, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE)), model, "stripes", 2, true);
    check_config(tiled(base, record(TIGRIS_TILE_AXIS_HW, 3, TIGRIS_BAND_KIND_HW, 5)), model, "hw tiles", 2, true);
    check_config(chained(base, 4, 2, false), model, "chains", 2, true);
    check_config(chained(base, 4, 2, true), model, "line-buffered chains", 2, true);
}

}  // namespace

TEST(Models, Vww96Int8) { check_model("vww_96_int8"); }

TEST(Models, KwsRefModel) { check_model("kws_ref_model"); }
