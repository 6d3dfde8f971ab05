// DETECTION_POSTPROCESS: fast and regular NMS on hand-built boxes (decoding, score threshold,
// IoU suppression, top classes, stable ties), int8 inputs, and the rule's shape checks.
#include <cstring>

#include "runtime/src/kernels/common/detection.h"
#include "runtime/src/plan/op_rules.h"
#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

std::vector<uint8_t> params(uint16_t max_det, uint16_t per_class, uint16_t classes, uint8_t regular, uint8_t k,
                            float score_thr, float iou_thr) {
  std::vector<uint8_t> b(32, 0);
  uint16_t h[3] = {max_det, per_class, classes};
  std::memcpy(b.data(), h, 6);
  b[6] = regular, b[7] = k;
  float f[6] = {score_thr, iou_thr, 1, 1, 1, 1};
  std::memcpy(b.data() + 8, f, 24);
  return b;
}

struct Det {
  Plan p;
  uint16_t enc, sc, boxes, classes, scores, count, work, op;
  // 3 boxes: b0 [0,0,1,1], b1 [0,0.1,1,1.1] (IoU 0.82 with b0), b2 [2.5,2.5,3.5,3.5].
  Det(uint16_t max_det, uint16_t per_class, uint8_t regular, uint8_t k, uint8_t dtype = TIGRIS_DTYPE_FLOAT32) {
    enc = p.tensor({1, 3, 4}, dtype);
    sc = p.tensor({1, 3, 3}, dtype);
    tigris_rt::detection::Params q{};
    auto attr = params(max_det, per_class, 2, regular, k, 0.3f, 0.5f);
    tigris_rt::detection::read_params(attr.data(), 32, &q);
    int32_t d = (int32_t)tigris_rt::detection::detections(q);
    boxes = p.tensor({1, d, 4});
    classes = p.tensor({1, d});
    scores = p.tensor({1, d});
    count = p.tensor({1});
    work = p.tensor({(int32_t)tigris_rt::detection::layout(q, 3).bytes}, TIGRIS_DTYPE_UINT8);
    op = p.op(TIGRIS_OP_DETECTION_POSTPROCESS, {enc, sc}, {boxes, classes, scores, count, work});
    p.o(op).weight_idx = p.weight({0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1, 3, 3, 1, 1});
    p.attr(op, TIGRIS_ATTR_DETECTION, attr);
    if (dtype == TIGRIS_DTYPE_INT8) {
      p.t(enc).quant_param_idx = p.quant(0.1f, 0);
      p.t(sc).quant_param_idx = p.quant(0.01f, 0);
    }
  }
  void run(const std::vector<float>& score_values = {0, 0.9f, 0.2f, 0, 0.8f, 0.85f, 0, 0.1f, 0.7f}) {
    ASSERT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
    tigris_mem_t* m = p.mem();
    if (p.t(sc).dtype == TIGRIS_DTYPE_INT8) {
      std::vector<int8_t> q;
      for (float v : score_values) q.push_back((int8_t)std::lround(v * 100));
      p.set(sc, q);
      p.set(enc, std::vector<int8_t>(12, 0));
    } else {
      p.set(sc, score_values);
      p.set(enc, std::vector<float>(12, 0.0f));
    }
    ASSERT_EQ(kt::run(p, op, m), 0);
  }
};

const std::vector<float> kB0 = {0, 0, 1, 1}, kB1 = {0, 0.1f, 1, 1.1f}, kB2 = {2.5f, 2.5f, 3.5f, 3.5f},
                         kZero = {0, 0, 0, 0};

std::vector<float> cat(std::initializer_list<std::vector<float>> parts) {
  std::vector<float> r;
  for (const auto& v : parts) r.insert(r.end(), v.begin(), v.end());
  return r;
}

TEST(Detection, FastNmsBestClassPerBox) {
  Det d(3, 0, 0, 1);
  d.run();
  kt::expect_near(d.p.get<float>(d.boxes), cat({kB0, kB2, kZero}));
  kt::expect_near(d.p.get<float>(d.classes), {0, 1, 0});
  kt::expect_near(d.p.get<float>(d.scores), {0.9f, 0.7f, 0});
  kt::expect_near(d.p.get<float>(d.count), {2});
}

TEST(Detection, FastNmsTwoClassesPerBox) {
  Det d(2, 0, 0, 2);
  d.run();
  kt::expect_near(d.p.get<float>(d.boxes), cat({kB0, kB0, kB2, kB2}));
  kt::expect_near(d.p.get<float>(d.classes), {0, 1, 1, 0});
  kt::expect_near(d.p.get<float>(d.scores), {0.9f, 0.2f, 0.7f, 0.1f});
  kt::expect_near(d.p.get<float>(d.count), {2});
}

TEST(Detection, RegularNmsPerClassThenMerged) {
  Det d(3, 2, 1, 0);
  d.run();
  kt::expect_near(d.p.get<float>(d.boxes), cat({kB0, kB1, kB2}));
  kt::expect_near(d.p.get<float>(d.classes), {0, 1, 1});
  kt::expect_near(d.p.get<float>(d.scores), {0.9f, 0.85f, 0.7f});
  kt::expect_near(d.p.get<float>(d.count), {3});
  Det two(2, 2, 1, 0);  // only the best two survive the merge
  two.run();
  kt::expect_near(two.p.get<float>(two.scores), {0.9f, 0.85f});
  kt::expect_near(two.p.get<float>(two.count), {2});
}

TEST(Detection, Int8InputsAndStableTies) {
  Det q(3, 2, 1, 0, TIGRIS_DTYPE_INT8);
  q.run();
  kt::expect_near(q.p.get<float>(q.scores), {0.9f, 0.85f, 0.7f});
  kt::expect_near(q.p.get<float>(q.boxes), cat({kB0, kB1, kB2}));
  Det t(3, 0, 0, 1);  // b0 and b2 tie at 0.6 (b1 below threshold): lower box index first
  t.run({0, 0.6f, 0, 0, 0.1f, 0.2f, 0, 0, 0.6f});
  kt::expect_near(t.p.get<float>(t.boxes), cat({kB0, kB2, kZero}));
  kt::expect_near(t.p.get<float>(t.classes), {0, 1, 0});
}

TEST(Detection, RuleRefusesSmallWorkingMemoryAndBadThreshold) {
  Det d(3, 0, 0, 1);
  d.p.t(d.work) = d.p.t(d.p.tensor({8}, TIGRIS_DTYPE_UINT8));
  EXPECT_EQ(tigris_rt::check_operator(d.p.plan(), d.op), TIGRIS_ERR_BAD_OPERATOR);
  Det e(3, 0, 0, 1);
  e.p.attr(e.op, TIGRIS_ATTR_DETECTION, params(3, 0, 2, 0, 1, 0.3f, 1.5f));
  EXPECT_EQ(tigris_rt::check_operator(e.p.plan(), e.op), TIGRIS_ERR_BAD_OPERATOR);
  Det f(3, 0, 0, 1);
  f.p.o(f.op).weight_idx = f.p.weight({1, 2, 3});  // anchors of the wrong size
  EXPECT_EQ(tigris_rt::check_operator(f.p.plan(), f.op), TIGRIS_ERR_BAD_OPERATOR);
}

}  // namespace
