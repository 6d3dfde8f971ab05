// Chains: members streamed band by band with composed receptive fields and back-propagated
// row ranges; only the head's input is loaded and only the last member's output spilled;
// line buffers move the rows tiles share instead of recomputing them. Outputs equal the
// unchained plan's (float and int8), with and without line buffers, with LZ4 weights.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace {

struct Layer {
  uint8_t type;
  tigris_spatial_t sp;
  int32_t oc;  // conv output channels (0: unchanged)
};

Layer conv(uint8_t k, uint8_t s, uint16_t pad, int32_t oc) {
  return Layer{TIGRIS_OP_CONV, window(k, k, s, s, pad, pad, pad, pad), oc};
}
Layer dw(uint8_t k, uint8_t s, uint16_t pad, int32_t c) {
  return Layer{TIGRIS_OP_DEPTHWISE, window(k, k, s, s, pad, pad, pad, pad, 1, 1, (uint16_t)c), c};
}
Layer pool(uint8_t type, uint8_t k, uint8_t s, uint16_t pad) {
  tigris_spatial_t sp = window(k, k, s, s, pad, pad, pad, pad);
  sp.group = 0;
  return Layer{type, sp, 0};
}
Layer relu() { return Layer{TIGRIS_OP_RELU, tigris_spatial_t{}, 0}; }

// x -> layers -> y; stages hold `members[i]` consecutive layers; chained with `tile_h`.
PlanDesc chain_plan(std::vector<int32_t> in, const std::vector<Layer>& layers, const std::vector<int>& members,
                    uint16_t tile_h, bool line_buffered, bool int8) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const float s_act = 0.05f;
  uint16_t cur = add_tensor(p, "x", in, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, s_act, 1) : TIGRIS_NONE);
  std::vector<int32_t> shape = in;
  std::vector<uint16_t> outs;  // output tensor of each layer
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    std::vector<int32_t> o = shape;
    const bool spatial = l.type != TIGRIS_OP_RELU;
    if (spatial) {
      o[1] =
          spatial_out(l.type, shape[1], l.sp.kernel_h, l.sp.stride_h, l.sp.dilation_h, l.sp.pad_top, l.sp.pad_bottom);
      o[2] =
          spatial_out(l.type, shape[2], l.sp.kernel_w, l.sp.stride_w, l.sp.dilation_w, l.sp.pad_left, l.sp.pad_right);
    }
    if (l.oc > 0) o[3] = l.oc;
    const bool conv_like = l.type == TIGRIS_OP_CONV || l.type == TIGRIS_OP_DEPTHWISE;
    uint16_t q = TIGRIS_NONE;
    if (int8)
      q = conv_like ? add_conv_quant(p, s_act, std::vector<float>((size_t)o[3], 0.02f), s_act, 1)
                    : add_quant(p, s_act, 1);
    const bool last = i + 1 == layers.size();
    uint16_t t = add_tensor(p, "t" + std::to_string(i), o, last ? TIGRIS_TENSOR_MODEL_OUTPUT : 0, dt, q);
    OpDesc op;
    op.name = "l" + std::to_string(i);
    op.type = l.type;
    op.inputs = {cur};
    op.outputs = {t};
    op.spatial = spatial ? l.sp : tigris_spatial_t{};
    if (conv_like) {
      const size_t n =
          (size_t)l.sp.kernel_h * l.sp.kernel_w * (size_t)o[3] * (l.type == TIGRIS_OP_CONV ? (size_t)shape[3] : 1u);
      if (int8) {
        op.weight = add_weight_bytes(p, pattern_s8(n, (uint32_t)i + 3, -40, 40));
        op.bias = add_weight_bytes(p, Bytes((size_t)o[3] * 4, 0));
      } else {
        op.weight = add_weight(p, pattern(n, 9, 0.125f, 5 + (int)i));
        op.bias = add_weight(p, pattern((size_t)o[3], 5, 0.25f));
      }
    }
    p.ops.push_back(op);
    outs.push_back(t);
    cur = t;
    shape = o;
  }
  size_t at = 0;
  uint16_t stage_in = 0;
  for (int n : members) {
    std::vector<uint16_t> ops;
    for (int k = 0; k < n; ++k) ops.push_back((uint16_t)(at + (size_t)k));
    at += (size_t)n;
    add_stage(p, ops, {stage_in}, {outs[at - 1]});
    stage_in = outs[at - 1];
  }
  p.model_inputs = {0};
  p.model_outputs = {cur};
  chain_stages(p, 0, (uint16_t)members.size(), tile_h, line_buffered);
  return p;
}

RunResult check_chain(const PlanDesc& p, const std::string& what) {
  const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
  EXPECT_EQ(r.stats.stages_chain, p.stages.size()) << what;
  EXPECT_EQ(r.stats.stages_tiled + r.stats.stages_normal, 0u) << what;
  EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHAIN}) << what;
  // Only the last member's output is spilled.
  if (!r.outputs.empty()) {
    EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << what;
  }
  return r;
}

const std::vector<Layer> kMobile = {conv(3, 1, 1, 4), relu(), dw(3, 2, 1, 4), relu(), conv(1, 1, 0, 6)};

TEST(Chain, TwoMembersEveryTileHeight) {
  for (bool int8 : {false, true})
    for (bool lb : {false, true})
      for (uint16_t h : {1, 2, 3, 5, 9}) {
        const PlanDesc p = chain_plan({1, 10, 6, 3}, kMobile, {2, 3}, h, lb, int8);
        const std::string what = std::string(int8 ? "s8" : "f32") + (lb ? " lb" : "") + " h" + std::to_string(h);
        const RunResult r = check_chain(p, what);
        const uint32_t H = 5, th = std::min<uint32_t>(h, H);
        EXPECT_EQ(r.stats.total_tiles, (H + th - 1) / th) << what;
      }
}

TEST(Chain, ThreeMembersBatchStridesPools) {
  const std::vector<Layer> layers = {conv(3, 1, 1, 4), pool(TIGRIS_OP_MAX_POOL, 3, 2, 1), relu(), conv(3, 1, 1, 3),
                                     pool(TIGRIS_OP_AVG_POOL, 2, 2, 0)};
  for (bool int8 : {false, true})
    for (bool lb : {false, true})
      for (uint16_t h : {1, 2, 3})
        check_chain(chain_plan({2, 13, 7, 2}, layers, {1, 2, 2}, h, lb, int8),
                    std::string("3 members") + (lb ? " lb" : "") + (int8 ? " s8" : "") + " h" + std::to_string(h));
}

TEST(Chain, LineBuffersMoveSharedRowsInsteadOfRecomputing) {
  const PlanDesc plain = chain_plan({1, 16, 5, 2}, kMobile, {2, 3}, 1, false, false);
  const PlanDesc lined = chain_plan({1, 16, 5, 2}, kMobile, {2, 3}, 1, true, false);
  const RunResult a = check_chain(plain, "no lb"), b = check_chain(lined, "lb");
  ASSERT_FALSE(a.outputs.empty());
  ASSERT_FALSE(b.outputs.empty());
  EXPECT_TRUE(a.outputs[0] == b.outputs[0]);
  // Without line buffers each of the 8 tiles loads a 7-row window (5 at the borders);
  // with them every input row is loaded exactly once.
  EXPECT_EQ(b.stats.loads_bytes, 16u * 5 * 2 * 4);
  EXPECT_GT(a.stats.loads_bytes, b.stats.loads_bytes);
  auto fast_moves = [](const RunResult& r) {
    size_t n = 0;
    for (const auto& e : r.events) n += e.kind == TIGRIS_TRACE_MOVE && e.pool == TIGRIS_TRACE_POOL_FAST;
    return n;
  };
  EXPECT_EQ(fast_moves(a), 0u);
  EXPECT_GT(fast_moves(b), 0u);
  // Kernel calls: the line-buffered chain computes each row of each layer once.
  EXPECT_LT(trace_count(b.events, TIGRIS_TRACE_OP), trace_count(a.events, TIGRIS_TRACE_OP) + 1);
}

struct RowCounter {
  int64_t rows = 0;
};

int counting_kernel(const tigris_plan_t* plan, const tigris_op_t* op, uint16_t op_index, tigris_mem_t* mem,
                    void* user) {
  if (mem->tile.active) static_cast<RowCounter*>(user)->rows += mem->tile.out_h;
  return tigris_dispatch_kernel(plan, op, op_index, mem, nullptr);
}

TEST(Chain, LineBuffersComputeEveryRowOnce) {
  // conv 3x3 -> conv 3x3 over 12 rows in tiles of one output row: with line buffers each
  // conv computes each of its 12 rows once; without, the first conv computes the 2 or 3
  // rows the second one's window needs on every tile (2 + 10 x 3 + 2).
  for (bool lb : {false, true}) {
    PlanDesc p = chain_plan({1, 12, 4, 2}, {conv(3, 1, 1, 3), conv(3, 1, 1, 2)}, {1, 1}, 1, lb, false);
    set_scheduled_peak(p);
    RowCounter c;
    RunOptions o;
    o.kernel = counting_kernel;
    o.user = &c;
    const RunResult r = run_plan(p, inputs_for(p), o);
    ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
    EXPECT_EQ(c.rows, lb ? 12 + 12 : 34 + 12) << lb;
    EXPECT_EQ(r.fast_peak, p.scheduled_peak) << lb;
  }
}

TEST(Chain, Lz4WeightsDecompressedUpFront) {
  for (bool lb : {false, true}) {
    PlanDesc p = chain_plan({1, 9, 6, 3}, kMobile, {2, 3}, 2, lb, false);
    p.compression = TIGRIS_COMPRESSION_LZ4;
    p.weight_blocks = {{0, 0, 2}, {1, 2, 4}};
    const RunResult r = check_chain(p, lb ? "lz4 lb" : "lz4");
    // Both members' blocks are decoded once, before the first tile.
    EXPECT_EQ(trace_count(r.events, TIGRIS_TRACE_WEIGHTS), 2u);
    size_t first_tile = 0, last_weights = 0;
    for (size_t i = 0; i < r.events.size(); ++i) {
      if (r.events[i].kind == TIGRIS_TRACE_WEIGHTS) last_weights = i;
      if (r.events[i].kind == TIGRIS_TRACE_TILE_BEGIN && first_tile == 0) first_tile = i;
    }
    EXPECT_LT(last_weights, first_tile);
    Loaded f;
    PlanDesc q = p;
    set_scheduled_peak(q);
    load(q, &f);
    ASSERT_EQ(f.err, TIGRIS_OK);
    EXPECT_EQ(r.fast_peak, q.scheduled_peak + tigris_weight_decompression_overhead(&f.plan));
  }
}

}  // namespace
