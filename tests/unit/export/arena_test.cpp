// The TFLite Micro arena model against figures measured on a real lp64 TFLite Micro build
// (the reference's table), the reference's predicted 32-bit tails, and hand-derived
// placements and allocation sequences on small models.
#include <gtest/gtest.h>

#include "export/tflite/reader.h"
#include "tests/unit/tflite/test_models.h"
#include "export/tflm/arena.h"
#include "export/tflm/kernels.h"
#include "export/tflm/planner.h"
#include "tests/unit/export/model_maker.h"

namespace {

using namespace tigris;
using tflm::Target;
using tigris::test::ModelMaker;

struct Measured {
  const char* model;
  int64_t head, tail, eval, persistent_tensors, quant, buffer_data, buffer_count, node, rest;
  int64_t ilp32_tail, arm_tail;  // predicted by the reference, unmeasured
};

// lp64 figures measured with RecordingMicroAllocator on TFLite Micro 90b983c2.
const Measured kMeasured[] = {
    {"vww_96_int8", 73728, 29664, 2136, 128, 64, 24252, 86, 1984, 1100, 26940, 26932},
    {"kws_ref_model", 16000, 8000, 840, 128, 64, 5540, 32, 832, 596, 6780, 6772},
    {"ad01_int8", 768, 2656, 744, 128, 64, 672, 12, 640, 408, 1612, 1492},
    {"pretrainedResnet_quant", 49152, 6560, 912, 128, 64, 3812, 35, 1024, 620, 5212, 5188},
    {"pretrainedResnet_large_int8", 122880, 10592, 912, 128, 64, 7844, 35, 1024, 620, 9244, 9220},
    {"str_ww_ref_model", 6656, 9696, 744, 128, 64, 7528, 28, 704, 528, 8620, 8596},
};

TEST(TflmArena, ReproducesMeasuredLp64Figures) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  for (const Measured& r : kMeasured) {
    SCOPED_TRACE(r.model);
    tflite::Model m = tflite::read_model_file(test::tflite_path(r.model));
    tflm::Arena a = tflm::compute_arena(m, Target::Lp64);
    EXPECT_EQ(a.head, r.head);
    EXPECT_EQ(a.tail, r.tail);
    EXPECT_EQ(a.tail_parts.eval_tensors, r.eval);
    EXPECT_EQ(a.tail_parts.persistent_tensors, r.persistent_tensors);
    EXPECT_EQ(a.tail_parts.quantization, r.quant);
    EXPECT_EQ(a.tail_parts.persistent_buffer_data, r.buffer_data);
    EXPECT_EQ(a.tail_parts.persistent_buffer_count, r.buffer_count);
    EXPECT_EQ(a.tail_parts.node_and_registration, r.node);
    EXPECT_EQ(a.tail_parts.objects + a.tail_parts.builtin_params, r.rest);
    EXPECT_EQ(a.tail_parts.objects, 248);
    EXPECT_EQ(tflm::tensor_arena_bytes(m), r.head);
  }
}

TEST(TflmArena, PredictedThirtyTwoBitTails) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  for (const Measured& r : kMeasured) {
    SCOPED_TRACE(r.model);
    tflite::Model m = tflite::read_model_file(test::tflite_path(r.model));
    tflm::Arena ilp32 = tflm::compute_arena(m, Target::Ilp32);
    tflm::Arena arm = tflm::compute_arena(m, Target::ArmNoneEabi);
    EXPECT_EQ(ilp32.tail, r.ilp32_tail);
    EXPECT_EQ(arm.tail, r.arm_tail);
    EXPECT_EQ(ilp32.head, r.head);  // the head does not depend on the ABI
    EXPECT_EQ(arm.head, r.head);
    EXPECT_EQ(arm.tail_parts.objects, 132);
  }
}

// ---- Planner: hand-derived placements ------------------------------------------------------
TEST(TflmPlanner, EqualSizesPlaceTheHigherIndexFirst) {
  std::vector<tflm::PlannedBuffer> b{{16, 0, 1}, {16, 0, 1}, {16, 0, 1}};
  EXPECT_EQ(tflm::plan_greedy(b), 48);
  EXPECT_EQ(b[2].offset, 0);
  EXPECT_EQ(b[1].offset, 16);
  EXPECT_EQ(b[0].offset, 32);
}

TEST(TflmPlanner, FirstFitReusesAHoleInOffsetOrder) {
  // 0: 48 [0,4] -> 0; 1: 32 [0,1] -> 48; 3: 16 [0,4] -> 80 (ties: index 3 before 2);
  // 2: 16 [2,4] skips 1 (not live with it) and fits in the hole at 48.
  std::vector<tflm::PlannedBuffer> b{{48, 0, 4}, {32, 0, 1}, {16, 2, 4}, {16, 0, 4}};
  EXPECT_EQ(tflm::plan_greedy(b), 96);
  EXPECT_EQ(b[0].offset, 0);
  EXPECT_EQ(b[1].offset, 48);
  EXPECT_EQ(b[3].offset, 80);
  EXPECT_EQ(b[2].offset, 48);
}

TEST(TflmPlanner, DisjointLifetimesShareOffsets) {
  std::vector<tflm::PlannedBuffer> b{{64, 0, 1}, {48, 2, 3}, {32, 1, 2}};
  // 64 at 0; 48 at 0 (not live with it); 32 overlaps both: past 64, then past 48 -> 64.
  EXPECT_EQ(tflm::plan_greedy(b), 96);
  EXPECT_EQ(b[1].offset, 0);
  EXPECT_EQ(b[2].offset, 64);
}

TEST(TflmPlanner, OfflineBuffersComeFirstAtTheirOffsets) {
  std::vector<tflm::PlannedBuffer> b{{32, 0, 2}, {16, 0, 2, 64}, {48, 0, 2}};
  // Offline 16 at 64 first; then 48 fits below it at 0 (gap 64); then 32: past 48, the gap
  // to 64 is 16 < 32, so past the offline buffer: 80.
  EXPECT_EQ(tflm::plan_greedy(b), 112);
  EXPECT_EQ(b[1].offset, 64);
  EXPECT_EQ(b[2].offset, 0);
  EXPECT_EQ(b[0].offset, 80);
}

// ---- Kernels and the tail on small models ----------------------------------------------------
// input int8 [1,4,4,8] -> MEAN over axes {1,2} -> int8 [1,1,1,8]
ModelMaker mean_model() {
  ModelMaker mm;
  int32_t in = mm.tensor({1, 4, 4, 8});
  int32_t axis = mm.ints({2}, {1, 2});
  int32_t out = mm.tensor({1, 1, 1, 8});
  mm.op(tflite::op::kMean, {in, axis}, {out}, {tflite::OptionsType::Reducer, tflite::ReducerOptions{true}});
  mm.io({in}, {out});
  return mm;
}

TEST(TflmArena, MeanScratchIsPlannedInTheHead) {
  ModelMaker mm = mean_model();
  const tflite::SubGraph& g = mm.g();
  EXPECT_EQ(tflm::kernel_scratch(mm.m, g, g.operators[0]), (std::vector<int64_t>{32, 16, 8}));
  // Everything is live at time 1: 128 + 32 + 16 (out) + 16 + 16.
  tflm::Arena a = tflm::compute_arena(mm.m, Target::Lp64);
  EXPECT_EQ(a.head, 208);
  EXPECT_EQ(a.scratch_buffers, 3);
  EXPECT_EQ(a.planned_buffers, 2);
}

TEST(TflmArena, TailSequenceByHandLp64) {
  // 248 objects; 3 eval tensors 72; node 64; params 1; OpData 44 -> 47 with padding;
  // 3 scratch handles 24; input array 8; tensor 64; quant 24 + 8; output array 8 -> 16;
  // tensor 64; quant 32.
  tflm::Arena a = tflm::compute_arena(mean_model().m, Target::Lp64);
  EXPECT_EQ(a.tail, 672);
  EXPECT_EQ(a.tail_parts.builtin_params, 1);
  EXPECT_EQ(a.tail_parts.scratch_handles, 24);
  EXPECT_EQ(a.tail_parts.persistent_buffer_data, 47 + 8 + 16);
}

TEST(TflmArena, TailSequenceByHandArm) {
  // 132; 36; 32; 1; OpData 44 -> 55; handles 12; input array 4; tensor 32; 12 + 8;
  // output array 4 -> 12; tensor 32; 12 + 8.
  tflm::Arena a = tflm::compute_arena(mean_model().m, Target::ArmNoneEabi);
  EXPECT_EQ(a.tail, 388);
  EXPECT_EQ(a.tail_parts.persistent_buffer_data, 55 + 4 + 12);
}

TEST(TflmKernels, PerChannelArraysAndLookupTables) {
  ModelMaker mm;
  int32_t in = mm.tensor({1, 16});
  int32_t per_tensor = mm.weights({4, 16});
  int32_t per_channel = mm.weights({4, 16}, 1, 4);
  int32_t out = mm.tensor({1, 4});
  int32_t in16 = mm.tensor({1, 4}, tflite::TensorType::Int16);
  int32_t out16 = mm.tensor({1, 4}, tflite::TensorType::Int16);
  int32_t conv_filter = mm.weights({6, 1, 1, 16});
  mm.op(tflite::op::kFullyConnected, {in, per_tensor, -1}, {out});
  mm.op(tflite::op::kFullyConnected, {in, per_channel, -1}, {out});
  mm.op(tflite::op::kSoftmax, {in16}, {out16});
  mm.op(tflite::op::kConv2D, {in, conv_filter, -1}, {out});
  const std::vector<tflite::Operator> ops = mm.g().operators;
  auto k = [&](int i, Target t) { return tflm::kernel_allocations(mm.m, mm.g(), ops[i], t); };
  EXPECT_TRUE(k(0, Target::Lp64).prepare_buffers.empty());
  EXPECT_EQ(k(1, Target::Lp64).prepare_buffers, (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(k(2, Target::Lp64).prepare_buffers, (std::vector<int64_t>{1026, 1026}));
  EXPECT_EQ(k(3, Target::Lp64).prepare_buffers, (std::vector<int64_t>{24, 24}));
  EXPECT_EQ(k(0, Target::ArmNoneEabi).builtin_params.size, 5);
  EXPECT_EQ(k(0, Target::Ilp32).builtin_params.size, 16);
  EXPECT_EQ(k(0, Target::Lp64).op_data, 64);
  EXPECT_EQ(k(0, Target::Ilp32).op_data, 48);
}

TEST(TflmArena, VariablesLiveInTheTail) {
  ModelMaker mm = mean_model();
  int32_t state = mm.tensor({1, 100});
  mm.g().tensors[state].is_variable = true;
  mm.g().operators[0].inputs.push_back(state);  // make it used (MEAN ignores extras here)
  tflm::Arena plain = tflm::compute_arena(mean_model().m, Target::Lp64);
  tflm::Arena a = tflm::compute_arena(mm.m, Target::Lp64);
  EXPECT_EQ(a.head, plain.head);
  // Pointer after the handles: 248 + 4*24 + 64 + 1 -> OpData to 464, handles 24 -> 488;
  // 100 bytes down from 488 is 588, aligned down to 592: 104 bytes charged.
  EXPECT_EQ(a.tail_parts.variables, 104);
}

// ---- Refusals ---------------------------------------------------------------------------------
tflm::Unmodeled refusal_kind(const tflite::Model& m, std::string* reason) {
  try {
    tflm::compute_arena(m, Target::ArmNoneEabi);
  } catch (const tflm::ArenaError& e) {
    *reason = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return tflm::Unmodeled::Persistent;
}

TEST(TflmArena, RefusesWhatItDoesNotModel) {
  std::string why;
  ModelMaker int4 = mean_model();
  int4.g().tensors[0].type = tflite::TensorType::Int4;
  EXPECT_EQ(refusal_kind(int4.m, &why), tflm::Unmodeled::TensorType);
  EXPECT_EQ(why, "a tensor type TFLite Micro's arena model does not know: INT4, tensor 0 (t0)");
  EXPECT_THROW(tflm::tensor_arena_bytes(int4.m), tflm::ArenaError);

  ModelMaker two = mean_model();
  two.m.subgraphs.push_back(two.m.subgraphs[0]);
  EXPECT_EQ(refusal_kind(two.m, &why), tflm::Unmodeled::SeveralSubgraphs);

  ModelMaker split = mean_model();
  split.op(49, {2}, {2});
  EXPECT_EQ(refusal_kind(split.m, &why), tflm::Unmodeled::Persistent);
  EXPECT_EQ(why, "TFLite Micro's persistent allocations for SPLIT are not modeled");
  EXPECT_EQ(tflm::tensor_arena_bytes(split.m), 208);  // the head is still known

  ModelMaker add_n = mean_model();
  add_n.op(tflite::op::kAddN, {2, 2}, {2});
  EXPECT_EQ(refusal_kind(add_n.m, &why), tflm::Unmodeled::Scratch);
  EXPECT_EQ(why, "TFLite Micro's scratch buffers for ADD_N are not modeled");

  ModelMaker custom = mean_model();
  custom.m.operator_codes.push_back({tflite::op::kCustom, "TFLite_Detection_PostProcess", 1});
  tflite::Operator o;
  o.opcode_index = static_cast<uint32_t>(custom.m.operator_codes.size() - 1);
  o.inputs = {2};
  o.outputs = {2};
  custom.g().operators.push_back(o);
  EXPECT_EQ(refusal_kind(custom.m, &why), tflm::Unmodeled::Scratch);
  EXPECT_EQ(why, "TFLite Micro's scratch buffers for CUSTOM (TFLite_Detection_PostProcess) are not modeled");

  ModelMaker dynamic = mean_model();
  dynamic.g().tensors[0].shape[0] = -1;
  EXPECT_EQ(refusal_kind(dynamic.m, &why), tflm::Unmodeled::TensorShape);
}

}  // namespace
