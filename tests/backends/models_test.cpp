// Whole int8 models through each adapter: vww_96_int8 and kws_ref_model (TFLite Micro
// all-tensor dumps: constants, quantization, reference inputs and outputs), one stage per
// operator, run untiled and banded (stripes, 2-D tiles, chains with and without line
// buffers) by the executor with the adapter's dispatcher. Every output must equal TFLite
// Micro's bytes (an independent reference) and the int8 reference kernels' run of the same
// plan; every convolution, pool and FC call must run natively (only RESHAPE and SOFTMAX fall
// back). The CMSIS-NN runs get exactly tigris_cmsis_nn_fast_arena_required() bytes.
#include "backend_harness.h"
#include "bands_fixture.h"
#include "tflm_plan.h"
#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_s8.h"
#include "unit/kernels_s8/tflm_dump.h"

using backtest::Backend;
using s8test::Dump;

// A named namespace: its using-directive must not reach the other files of a unity batch.
namespace models_test {

using namespace bandtest;
using bandtest::Bytes;  // not backtest's, which the suite's other files bring in

struct ModelRun {
  int prepare = -99;
  tigris_exec_error_t rc = TIGRIS_EXEC_ERR_NULL;
  Bytes out;
  uint32_t native = 0, fallback = 0;
};

// One inference of a loaded plan: the reference kernels (b == nullptr) or an adapter
// prepared right after tigris_mem_init on an arena of exactly the size it asks for.
ModelRun run(const tigris_plan_t& plan, const Bytes& x, const Backend* b) {
  ModelRun r;
  uint32_t fast = tigris_fast_arena_required(&plan);
#ifdef TIGRIS_HAS_CMSIS_NN
  if (b != nullptr && b->cmsis) fast = tigris_cmsis_nn_fast_arena_required(&plan);
#endif
  std::vector<uint8_t> fast_buf(fast + 64), slow_buf((1u << 20) + 64);
  uint8_t* fp = (uint8_t*)(((uintptr_t)fast_buf.data() + 63u) & ~(uintptr_t)63u);
  uint8_t* sp = (uint8_t*)(((uintptr_t)slow_buf.data() + 63u) & ~(uintptr_t)63u);
  std::vector<void*> ptrs(plan.header->num_tensors);
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

void check_config(const PlanDesc& desc, const std::string& model, const std::string& what, int inputs, bool banded) {
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
    for (const Backend& b : backtest::backends()) {
      const std::string name = std::string(b.name) + " " + model + " " + what + " input " + std::to_string(k);
      const ModelRun r = run(f.plan, x, &b);
      ASSERT_EQ(r.prepare, 0) << name;
      ASSERT_EQ(r.rc, TIGRIS_EXEC_OK) << name << ": " << tigris_exec_error_str(r.rc);
      EXPECT_TRUE(r.out == expect) << name << ": differs from TFLite Micro";
      EXPECT_TRUE(r.out == ref.out) << name << ": differs from the int8 reference kernels";
      EXPECT_EQ(r.fallback, 2u) << name << ": only RESHAPE and SOFTMAX may fall back";
      // Whole: one call per op; banded: one per band, so more.
      if (!banded)
        EXPECT_EQ(r.native, (uint32_t)(p.ops.size() - 2)) << name;
      else
        EXPECT_GT(r.native, (uint32_t)(p.ops.size() - 2)) << name << ": the convolutions were not banded";
    }
  }
}

void check_model(const char* model) {
  BACKENDS_OR_SKIP();
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
  Dump d;
  std::string error;
  if (!s8test::load_dump(TIGRIS_MODELS_DIR, model, &d, &error)) GTEST_SKIP() << error;
  PlanDesc base;
  ASSERT_TRUE(tflm_model_plan(d, model, &base)) << model;
  check_config(base, model, "whole", 8, false);
  check_config(tile_convs(base, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE)), model, "stripes", 2,
               true);
  check_config(tile_convs(base, record(TIGRIS_TILE_AXIS_HW, 3, TIGRIS_BAND_KIND_HW, 5)), model, "hw tiles", 2, true);
  check_config(chain_convs(base, 4, 2, false), model, "chains", 2, true);
  check_config(chain_convs(base, 4, 2, true), model, "line-buffered chains", 2, true);
}

}  // namespace models_test

TEST(Models, Vww96Int8) { models_test::check_model("vww_96_int8"); }

TEST(Models, KwsRefModel) { models_test::check_model("kws_ref_model"); }
