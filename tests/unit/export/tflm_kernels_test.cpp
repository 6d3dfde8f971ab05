// TFLite Micro's allocations for SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM, CAST, DIV and the signal
// library on small models, each figure derived by hand from the kernels' Init/Prepare
// (svdf_common.cc, unidirectional_sequence_lstm.cc, signal/micro/kernels/*.cc at 90b983c2)
// and kissfft v130's kiss_fftr_alloc.
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <functional>

#include "export/tflm/arena.h"
#include "export/tflm/kernels.h"
#include "export/tflm/signal_kernels.h"
#include "tests/unit/export/model_maker.h"

namespace {

using namespace tigris;
using tflm::Target;
using tigris::test::ModelMaker;
using tflite::TensorType;

std::vector<int64_t> scratch_of(ModelMaker& mm, size_t i = 0) {
  return tflm::kernel_scratch(mm.m, mm.g(), mm.g().operators[i]);
}
tflm::KernelAllocations allocations_of(ModelMaker& mm, Target t, size_t i = 0) {
  return tflm::kernel_allocations(mm.m, mm.g(), mm.g().operators[i], t);
}
std::string reason_of(ModelMaker& mm, size_t i = 0) {
  return tflm::kernel_unmodeled_reason(mm.m, mm.g(), mm.g().operators[i]);
}

// ---- SVDF ------------------------------------------------------------------------------------
// input [2, 10], feature weights [8, 10], time weights [8, 5], bias [4], state [2, 40]; rank 2,
// so 4 units.
ModelMaker svdf_model(TensorType type) {
  ModelMaker mm;
  float scale = type == TensorType::Int8 ? 0.5f : 0.0f;
  int32_t in = mm.tensor({2, 10}, type, scale);
  int32_t feature = mm.weights({8, 10});
  int32_t time = mm.weights({8, 5});
  int32_t bias = mm.bias(4);
  int32_t state = mm.tensor({2, 40}, type, scale);
  mm.g().tensors[state].is_variable = true;
  int32_t out = mm.tensor({2, 4}, type, scale);
  mm.op(tflite::op::kSvdf, {in, feature, time, bias, state}, {out},
        {tflite::OptionsType::Svdf, tflite::SVDFOptions{2, tflite::Activation::Relu, false}});
  mm.io({in}, {out});
  return mm;
}

TEST(TflmKernels, SvdfScratchIsAccumulatorsForFiltersAndUnits) {
  ModelMaker int8 = svdf_model(TensorType::Int8);
  EXPECT_EQ(scratch_of(int8), (std::vector<int64_t>{4 * 2 * 8, 4 * 2 * 4}));
  ModelMaker f32 = svdf_model(TensorType::Float32);
  EXPECT_EQ(scratch_of(f32), (std::vector<int64_t>{4 * 2 * 8}));
  EXPECT_EQ(allocations_of(int8, Target::Lp64).op_data, 36);
  EXPECT_EQ(allocations_of(int8, Target::Lp64).builtin_params.size, 12);
  EXPECT_EQ(allocations_of(int8, Target::ArmNoneEabi).builtin_params.size, 8);  // 1-byte enum
}

TEST(TflmKernels, SvdfHeadAndTailByHand) {
  // Head at time 1: input 20 -> 32, output 8 -> 16, scratch 64 and 32: 144. The state is a
  // variable: in the tail, not the head.
  ModelMaker mm = svdf_model(TensorType::Int8);
  tflm::Arena a = tflm::compute_arena(mm.m, Target::Lp64);
  EXPECT_EQ(a.head, 144);
  EXPECT_EQ(a.scratch_buffers, 2);
  EXPECT_EQ(a.tail_parts.scratch_handles, 16);
  // lp64 tail: 248 objects; 6 eval tensors 144 -> 392; node 64 -> 456; params 12 -> 468;
  // OpData 36 -> 504 -> 512 (44); handles 16 -> 528; state 80 -> 608; input array 8 -> 616 -> 624,
  // tensor 64, quantization 24 + 8; output array 8 -> 728 -> 736, tensor 64, 24 + 8.
  EXPECT_EQ(a.tail_parts.variables, 80);
  EXPECT_EQ(a.tail, 832);
}

TEST(TflmKernels, SvdfWithoutRankIsNotModeled) {
  ModelMaker mm = svdf_model(TensorType::Int8);
  mm.g().operators[0].options = {};
  EXPECT_EQ(reason_of(mm), "TFLite Micro's scratch buffers for SVDF are not modeled: its rank is missing");
  EXPECT_TRUE(scratch_of(mm).empty());
}

// ---- UNIDIRECTIONAL_SEQUENCE_LSTM ------------------------------------------------------------
// 24 inputs: the input (0), the hidden state (18) and the cell state (19) size the scratch.
ModelMaker lstm_model(std::vector<int32_t> input_shape, int32_t batch, bool time_major, TensorType cell_type) {
  ModelMaker mm;
  int32_t in = mm.tensor(input_shape, TensorType::Float32, 0);
  std::vector<int32_t> inputs(24, -1);
  inputs[0] = in;
  inputs[18] = mm.tensor({batch, 6}, TensorType::Float32, 0);
  inputs[19] = mm.tensor({batch, 6}, cell_type, 0);
  mm.g().tensors[inputs[18]].is_variable = true;
  mm.g().tensors[inputs[19]].is_variable = true;
  int32_t out = mm.tensor({input_shape[0], input_shape[1], 6}, TensorType::Float32, 0);
  tflite::UnidirectionalSequenceLstmOptions opts;
  opts.time_major = time_major;
  mm.op(tflite::op::kUnidirectionalSequenceLstm, inputs, {out}, {tflite::OptionsType::UnidirectionalSequenceLstm, opts});
  mm.io({in}, {out});
  return mm;
}

TEST(TflmKernels, LstmScratchIsFourCellStateSizedBuffers) {
  // Batch-major [3, 5, 4]: batch 3, state 6, float cell: 3 x 6 x 4 = 72 each.
  ModelMaker batch_major = lstm_model({3, 5, 4}, 3, false, TensorType::Float32);
  EXPECT_EQ(scratch_of(batch_major), (std::vector<int64_t>{72, 72, 72, 72}));
  // Time-major [5, 2, 4]: batch is dim 1 = 2; an int16 cell: 2 x 6 x 2 = 24 each.
  ModelMaker time_major = lstm_model({5, 2, 4}, 2, true, TensorType::Int16);
  EXPECT_EQ(scratch_of(time_major), (std::vector<int64_t>{24, 24, 24, 24}));
  for (Target t : {Target::ArmNoneEabi, Target::Ilp32, Target::Lp64}) {
    EXPECT_EQ(allocations_of(batch_major, t).op_data, 688);
    EXPECT_EQ(allocations_of(batch_major, t).builtin_params.size, 16);
  }
}

TEST(TflmKernels, LstmScratchIsPlannedAtItsStep) {
  // Head at time 1: input 240, output 360 and four scratch buffers of 80 (72 rounded up).
  ModelMaker mm = lstm_model({3, 5, 4}, 3, false, TensorType::Float32);
  tflm::Arena a = tflm::compute_arena(mm.m, Target::Lp64);
  EXPECT_EQ(a.head, 240 + 368 + 4 * 80);
  EXPECT_EQ(a.scratch_buffers, 4);
  EXPECT_EQ(a.tail_parts.variables, 80 + 80);  // the two states, 72 bytes each, 16-aligned
}

TEST(TflmKernels, LstmWithoutStatesIsNotModeled) {
  ModelMaker mm = lstm_model({3, 5, 4}, 3, false, TensorType::Float32);
  mm.g().operators[0].inputs[19] = -1;
  EXPECT_EQ(reason_of(mm),
            "TFLite Micro's scratch buffers for UNIDIRECTIONAL_SEQUENCE_LSTM are not modeled: its input or state "
            "tensors are missing");
}

// ---- CAST, DIV ------------------------------------------------------------------------------
TEST(TflmKernels, CastAndDivParameters) {
  ModelMaker mm;
  int32_t a = mm.tensor({4}, TensorType::Float32, 0);
  int32_t b = mm.tensor({4}, TensorType::Int32, 0);
  mm.op(tflite::op::kCast, {a}, {b});
  mm.op(tflite::op::kDiv, {a, a}, {a});
  EXPECT_EQ(allocations_of(mm, Target::ArmNoneEabi, 0).builtin_params.size, 2);  // two 1-byte TfLiteTypes
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 0).builtin_params.size, 8);
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 0).op_data, 0);  // no Init
  EXPECT_EQ(allocations_of(mm, Target::ArmNoneEabi, 1).builtin_params.size, 1);
  EXPECT_EQ(allocations_of(mm, Target::Ilp32, 1).builtin_params.size, 4);
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 1).op_data, 28);  // OpDataDiv: 7 x 32-bit
}

// ---- MIRROR_PAD ------------------------------------------------------------------------------
TEST(TflmKernels, MirrorPadScratchIsTwoRankArrays) {
  // int8 [1, 4, 4, 3] padded by 1 on H and W: two scratch arrays of 4 ints (16 bytes each).
  ModelMaker mm;
  int32_t in = mm.tensor({1, 4, 4, 3});
  int32_t pads = mm.ints({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
  int32_t out = mm.tensor({1, 6, 6, 3});
  mm.op(tflite::op::kMirrorPad, {in, pads}, {out});
  mm.io({in}, {out});
  EXPECT_EQ(reason_of(mm), "");
  EXPECT_EQ(scratch_of(mm), (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(allocations_of(mm, Target::Lp64).op_data, 20);
  EXPECT_EQ(allocations_of(mm, Target::ArmNoneEabi).builtin_params.size, 1);  // {mode enum}
  // Head at step 1: input 48, output 108 -> 112, scratch 16 + 16.
  EXPECT_EQ(tflm::compute_arena(mm.m, Target::Lp64).head, 48 + 112 + 32);
}

// ---- The signal library ---------------------------------------------------------------------
std::vector<uint8_t> flex_map(const std::function<void(flexbuffers::Builder&)>& fill) {
  flexbuffers::Builder fbb;
  size_t start = fbb.StartMap();
  fill(fbb);
  fbb.EndMap(start);
  fbb.Finish();
  return fbb.GetBuffer();
}

tflite::Operator& custom_op(ModelMaker& mm, const std::string& code, std::vector<int32_t> in, std::vector<int32_t> out,
                            std::vector<uint8_t> options) {
  mm.m.operator_codes.push_back({tflite::op::kCustom, code, 1});
  tflite::Operator o;
  o.opcode_index = static_cast<uint32_t>(mm.m.operator_codes.size() - 1);
  o.inputs = std::move(in);
  o.outputs = std::move(out);
  o.custom_options = std::move(options);
  mm.g().operators.push_back(std::move(o));
  return mm.g().operators.back();
}

TEST(TflmKernels, KissFftrMemoryByHand) {
  // int16, 512: half 256; kiss_fft_state 8 + 256 + 4 = 268, plus 255 twiddles of 4: 1288;
  // then 384 complex values of 4 and three pointers.
  EXPECT_EQ(tflm::kiss_fftr_bytes(512, 2, 8), 24 + 1288 + 1536);
  EXPECT_EQ(tflm::kiss_fftr_bytes(512, 2, 4), 12 + 1288 + 1536);
  // float, 64: half 32; state 8 + 256 + 8 = 272 plus 31 x 8; 48 complex values of 8.
  EXPECT_EQ(tflm::kiss_fftr_bytes(64, 4, 8), 24 + 272 + 248 + 384);
}

TEST(TflmKernels, SignalRfftStateAndScratch) {
  ModelMaker mm;
  int32_t in = mm.tensor({480}, TensorType::Int16, 0);
  int32_t out = mm.tensor({514}, TensorType::Int16, 0);
  custom_op(mm, "SignalRfft", {in}, {out}, flex_map([](flexbuffers::Builder& b) {
              b.Int("T", static_cast<int>(TensorType::Int16));
              b.Int("fft_length", 512);
            }));
  EXPECT_EQ(reason_of(mm), "");
  EXPECT_EQ(scratch_of(mm), (std::vector<int64_t>{1024}));  // 512 int16
  tflm::KernelAllocations lp64 = allocations_of(mm, Target::Lp64);
  EXPECT_EQ(lp64.op_data, 48);
  EXPECT_EQ(lp64.init_buffers, (std::vector<int64_t>{2848}));
  tflm::KernelAllocations arm = allocations_of(mm, Target::ArmNoneEabi);
  EXPECT_EQ(arm.op_data, 32);
  EXPECT_EQ(arm.init_buffers, (std::vector<int64_t>{2836}));
  EXPECT_EQ(arm.builtin_params.size, 0);  // CUSTOM: no parser struct
}

TEST(TflmKernels, SignalFilterBankAndSpectralSubtractionBuffers) {
  ModelMaker mm;
  int32_t spectrum = mm.tensor({257}, TensorType::UInt32, 0);
  int32_t bank = mm.tensor({40}, TensorType::UInt64, 0);
  int32_t energy = mm.tensor({40}, TensorType::UInt32, 0);
  int32_t cleaned = mm.tensor({40}, TensorType::UInt32, 0);
  int32_t noise = mm.tensor({40}, TensorType::UInt32, 0);
  auto channels = flex_map([](flexbuffers::Builder& b) { b.Int("num_channels", 40); });
  custom_op(mm, "SignalFilterBank", {spectrum}, {bank}, channels);
  custom_op(mm, "SignalFilterBankSpectralSubtraction", {energy}, {cleaned, noise}, channels);
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 0).op_data, 64);
  EXPECT_EQ(allocations_of(mm, Target::Ilp32, 0).op_data, 36);
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 0).init_buffers, (std::vector<int64_t>{8 * 41}));
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 1).op_data, 56);
  EXPECT_EQ(allocations_of(mm, Target::ArmNoneEabi, 1).op_data, 44);
  EXPECT_EQ(allocations_of(mm, Target::Lp64, 1).init_buffers, (std::vector<int64_t>{4 * 40}));
  EXPECT_TRUE(scratch_of(mm, 0).empty());
}

TEST(TflmKernels, SignalWindowTailByHand) {
  // int16 [16] -> SignalWindow (weights [16]) -> int16 [16]. Head: 32 + 32, both live at step 1.
  // lp64 tail: 248; 3 eval tensors 72 -> 320; node 64 -> 384; params 8 -> 392 -> 400;
  // input array 8 -> 408 -> 416, tensor 64 -> 480; output array 8 -> 488 -> 496, tensor 64 -> 560.
  ModelMaker mm;
  int32_t in = mm.tensor({16}, TensorType::Int16, 0);
  int32_t w = mm.ints({16}, std::vector<int32_t>(16, 1));
  mm.g().tensors[w].type = TensorType::Int16;
  int32_t out = mm.tensor({16}, TensorType::Int16, 0);
  custom_op(mm, "SignalWindow", {in, w}, {out}, flex_map([](flexbuffers::Builder& b) { b.Int("shift", 12); }));
  mm.io({in}, {out});
  tflm::Arena a = tflm::compute_arena(mm.m, Target::Lp64);
  EXPECT_EQ(a.head, 64);
  EXPECT_EQ(a.tail, 560);
  EXPECT_EQ(a.tail_parts.persistent_buffer_count, 3);
}

TEST(TflmKernels, InitBuffersFollowTheirOpDataOperatorByOperator) {
  // Init runs operator by operator: FilterBank's params and work area, then Window's params,
  // before any Prepare buffer. On lp64 from the same start, 64 + 328 + 8 lands on 16-aligned
  // steps 64, 336 (328 rounded), 16.
  ModelMaker mm;
  int32_t spectrum = mm.tensor({257}, TensorType::UInt32, 0);
  int32_t bank = mm.tensor({40}, TensorType::UInt64, 0);
  int32_t in = mm.tensor({16}, TensorType::Int16, 0);
  int32_t out = mm.tensor({16}, TensorType::Int16, 0);
  custom_op(mm, "SignalFilterBank", {spectrum}, {bank},
            flex_map([](flexbuffers::Builder& b) { b.Int("num_channels", 40); }));
  custom_op(mm, "SignalWindow", {in, in}, {out}, flex_map([](flexbuffers::Builder& b) { b.Int("shift", 12); }));
  mm.io({spectrum, in}, {bank, out});
  tflm::Arena a = tflm::compute_arena(mm.m, Target::Lp64);
  // Before the kernels: 248 + 4 x 24 + 2 x 64 = 472, 8 past a 16 boundary: FilterBank's
  // params take 64 + 8 of padding. Then 336, 16; I/O arrays 16 + 16.
  EXPECT_EQ(a.tail_parts.persistent_buffer_data, 72 + 336 + 16 + 16 + 16);
  EXPECT_EQ(a.tail_parts.persistent_buffer_count, 5);
}

TEST(TflmKernels, SignalOptionsThatCannotBeSizedAreNotModeled) {
  ModelMaker mm;
  int32_t in = mm.tensor({480}, TensorType::Int16, 0);
  int32_t out = mm.tensor({514}, TensorType::Int16, 0);
  custom_op(mm, "SignalRfft", {in}, {out}, flex_map([](flexbuffers::Builder& b) {
              b.Int("T", static_cast<int>(TensorType::Int16));
              b.Int("fft_length", 511);
            }));
  EXPECT_EQ(reason_of(mm), "TFLite Micro's scratch buffers for CUSTOM (SignalRfft) are not modeled: fft_length is odd");
  mm.g().operators[0].custom_options.reset();
  EXPECT_EQ(reason_of(mm),
            "TFLite Micro's scratch buffers for CUSTOM (SignalRfft) are not modeled: its options are missing");
  custom_op(mm, "SignalFooBar", {in}, {out}, {});
  EXPECT_EQ(reason_of(mm, 1), "TFLite Micro's scratch buffers for CUSTOM (SignalFooBar) are not modeled");
}

// ---- What the head holds (analyze's row) ----------------------------------------------------
TEST(TflmKernels, HeadScopeSaysWhoseScratchIsIn) {
  ModelMaker lstm = lstm_model({3, 5, 4}, 3, false, TensorType::Float32);
  tflm::HeadScope s = tflm::head_scope(lstm.m);
  EXPECT_TRUE(s.other_kernel_scratch);
  EXPECT_FALSE(s.kernels_unmodeled);
  lstm.op(tflite::op::kAddN, {0, 0}, {0});
  s = tflm::head_scope(lstm.m);
  EXPECT_TRUE(s.other_kernel_scratch);
  EXPECT_TRUE(s.kernels_unmodeled);
  ModelMaker cast;
  int32_t a = cast.tensor({4}, TensorType::Float32, 0);
  cast.op(tflite::op::kCast, {a}, {cast.tensor({4}, TensorType::Int32, 0)});
  s = tflm::head_scope(cast.m);
  EXPECT_FALSE(s.other_kernel_scratch);
  EXPECT_FALSE(s.kernels_unmodeled);
}

}  // namespace
