// A real int8 model (vww_96_int8, TFLite Micro all-tensor dump) through the banded paths:
// its convolutions as stripes, as 2-D tiles, and as line-buffered and plain chains, run in
// an arena of exactly tigris_fast_arena_required() — outputs byte for byte TFLite Micro's,
// the fast peak exactly the plan's scheduled peak (the band cost model's figure).
#include "bands_fixture.h"
#include "tflm_plan.h"

using namespace bandtest;
using s8test::Dump;

namespace {

void check_against_tflm(const PlanDesc& desc, const char* what, uint32_t* peak) {
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

TEST(TflmModel, Vww96Int8BandedBitExact) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent (TIGRIS_MODELS_DIR=" TIGRIS_MODELS_DIR ")";
  Dump d;
  std::string error;
  if (!s8test::load_dump(TIGRIS_MODELS_DIR, "vww_96_int8", &d, &error)) GTEST_SKIP() << error;
  PlanDesc base;
  ASSERT_TRUE(tflm_model_plan(d, "vww_96_int8", &base));
  uint32_t whole = 0, stripes = 0, hw = 0, chains = 0, lb = 0;
  check_against_tflm(base, "whole", &whole);
  check_against_tflm(tile_convs(base, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE)), "stripes",
                     &stripes);
  check_against_tflm(tile_convs(base, record(TIGRIS_TILE_AXIS_HW, 3, TIGRIS_BAND_KIND_HW, 5)), "hw", &hw);
  check_against_tflm(chain_convs(base, 4, 2, false), "chains", &chains);
  check_against_tflm(chain_convs(base, 4, 2, true), "line-buffered chains", &lb);
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
