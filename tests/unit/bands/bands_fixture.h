// Helpers for the banded-path tests: plans built with the plan writer (tile facts filled by
// fill_tile_facts) and loaded by the runtime loader, runs with a chosen arena and kernel set,
// a trace recorder, and reference runs of the same plan with every stage whole.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/plan/plan_writer.h"
#include "plan_support/plan_builder.h"
#include "plan_support/trace_recorder.h"
#include "plan/band_cost_plan.h"
#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"
#include "tigris_mem.h"
#include "tigris_trace.h"

namespace bandtest {

using tigris::plan::AttrDesc;
using tigris::plan::OpDesc;
using tigris::plan::PlanDesc;
using tigris::plan::QuantDesc;
using tigris::plan::StageDesc;
using tigris::plan::TensorDesc;
using tigris::plan::WeightDesc;
using plantest::add_op;
using plantest::add_stage;
using plantest::add_tensor;
using plantest::add_weight;
using plantest::add_weight_bytes;
using plantest::Bytes;
using plantest::load;
using plantest::Loaded;
using plantest::Recorder;

constexpr uint32_t A = TIGRIS_TENSOR_ALIGN;
inline uint32_t al(uint64_t n) { return (uint32_t)((n + A - 1) / A * A); }

inline tigris_spatial_t window(uint8_t kh, uint8_t kw, uint8_t sh, uint8_t sw, uint16_t pt, uint16_t pb, uint16_t pl,
                               uint16_t pr, uint16_t dh = 1, uint16_t dw = 1, uint16_t group = 1) {
  tigris_spatial_t s{};
  s.kernel_h = kh, s.kernel_w = kw, s.stride_h = sh, s.stride_w = sw;
  s.pad_top = pt, s.pad_bottom = pb, s.pad_left = pl, s.pad_right = pr;
  s.dilation_h = dh, s.dilation_w = dw, s.group = group;
  return s;
}

// A tileable v11 record with the given band (facts filled later by fill_tile_facts).
inline tigris_tile_plan_v11_t record(uint8_t axis, uint32_t band, uint8_t kind, uint16_t tile_w = 0, uint16_t flags = 0,
                                     uint8_t mode = 0) {
  tigris_tile_plan_v11_t t{};
  t.choices.tileable = 1;
  t.choices.axis = axis;
  t.choices.tile_height = (uint16_t)(band > 0xFFFF ? 0xFFFF : band);
  t.choices.tile_extent_wide = band;
  t.choices.tile_width = tile_w;
  t.choices.flags = flags;
  t.facts.band = TIGRIS_TILE_BAND(kind, mode);
  return t;
}

// Attach a record to stage s (replacing any) and fill the facts.
inline void tile_stage(PlanDesc& p, uint16_t s, tigris_tile_plan_v11_t rec) {
  p.tile_plans.push_back(rec);
  p.stages[s].tile_plan = (uint16_t)(p.tile_plans.size() - 1);
  if (p.version >= 11) tigris::plan::fill_tile_facts(p);
}

// Make stages [head, head + len) a chain with `tile_h` rows per tile.
inline void chain_stages(PlanDesc& p, uint16_t head, uint16_t len, uint16_t tile_h, bool line_buffered) {
  for (uint16_t s = head; s < head + len; ++s) {
    p.stages[s].chain_id = head;
    p.stages[s].chain_len = len;
  }
  p.stages[head].chain_tile_h = tile_h;
  p.stages[head].flags = line_buffered ? TIGRIS_STAGE_LINE_BUFFERED : 0;
}

// The cost model's peak of stage s of a loaded plan (host alignment).
inline uint64_t model_peak(const tigris_plan_t& plan, uint16_t s) {
  std::vector<tigris_rt::CostSpace> spaces(256);
  tigris_rt::CostPeak pk{};
  if (!tigris_rt::plan_stage_peak(&plan, s, A, spaces.data(), (uint16_t)spaces.size(), &pk)) return 0;
  return pk.peak;
}

// ---- int8 helpers ----

// A per-tensor quant param (the multiplier/shift pair is a placeholder for non-conv ops).
uint16_t add_quant(PlanDesc& p, float scale, int32_t zp);
// The output quant of a conv-like op: per-channel factors of in * w[c] / out.
uint16_t add_conv_quant(PlanDesc& p, float in_scale, const std::vector<float>& w_scales, float out_scale, int32_t zp);
// Deterministic int8 bytes in [lo, hi].
Bytes pattern_s8(size_t n, uint32_t seed, int lo = -100, int hi = 100);

// ---- runs ----

struct RunResult {
  tigris_exec_error_t rc = TIGRIS_EXEC_ERR_NULL;
  std::vector<Bytes> outputs;  // per model output, raw stored bytes
  tigris_exec_stats_t stats{};
  uint32_t fast_peak = 0;
  uint32_t fast_required = 0;  // tigris_fast_arena_required of the plan
  std::vector<tigris_trace_event_t> events;
  tigris_mem_t mem{};  // after the run
};

struct RunOptions {
  uint32_t fast = 0;  // 0: tigris_fast_arena_required(plan) exactly
  uint32_t slow = 1u << 16;
  bool trace = true;
  tigris_kernel_fn kernel = nullptr;  // nullptr: the plan's dispatcher (float or int8)
  void* user = nullptr;
};

// The dispatcher of a loaded plan (int8 or float).
tigris_kernel_fn plan_kernel(const tigris_plan_t* plan);

// Write, load (must load) and run `d` with `inputs` (raw bytes, per model input).
RunResult run_plan(const PlanDesc& d, const std::vector<Bytes>& inputs, const RunOptions& o = RunOptions{});

// The same plan with every stage whole: no tile records, no chains, scheduled peak 0.
PlanDesc whole_plan(const PlanDesc& d);

// Set scheduled_peak to what the runtime holds: per stage, the band cost model's peak for
// banded stages and chains, and for normal stages every distinct input and op output.
void set_scheduled_peak(PlanDesc& d);

// The largest model peak over the plan's banded stages and chains (0 when none).
uint64_t banded_peak(const PlanDesc& d);

// Sums of trace bytes per kind.
uint64_t trace_bytes(const std::vector<tigris_trace_event_t>& ev, uint8_t kind);
size_t trace_count(const std::vector<tigris_trace_event_t>& ev, uint8_t kind);

// The path of every STAGE_BEGIN event, in order.
std::vector<uint8_t> stage_paths(const RunResult& r);

// Input bytes of a float vector.
Bytes float_bytes(const std::vector<float>& v);
std::vector<float> as_floats(const Bytes& b);

// Check: the banded run equals the whole run (bytes), stats and trace sums agree, and the
// fast peak equals the scheduled peak. Returns the banded result.
RunResult expect_banded_equals_whole(const PlanDesc& banded, const std::vector<Bytes>& inputs, const std::string& what);

// ---- one-stage spatial plans ----

struct SpatialCase {
  std::vector<int32_t> in;  // NHWC (or NLC for Conv1D)
  uint8_t type = TIGRIS_OP_CONV;
  tigris_spatial_t sp{};
  int32_t oc = 0;            // conv output channels (0: same as input)
  bool relu_after = true;    // a ReLU after the spatial op (in the output band)
  bool relu_before = false;  // a ReLU before it (in the input band)
  bool int8 = false;
};

// Output extent of a spatial op along one axis.
int32_t spatial_out(uint8_t type, int32_t in, uint32_t k, uint32_t s, uint32_t d, uint32_t pa, uint32_t pb);

// x -> [relu ->] spatial op -> y [-> relu -> z], one stage banded by `rec` (facts filled).
// The model input is tensor 0, the output the last tensor.
PlanDesc spatial_plan(const SpatialCase& c, const tigris_tile_plan_v11_t& rec);

// Turns a spatial_plan() without relu_after (x -> op -> y) into x -> op -> y -> add(y, b) -> z:
// b is a second stage and model input of `b_shape`, z the output of `z_shape` (int8: b and z
// quantized with their own factors); tile facts filled again.
void append_add_operand(PlanDesc& p, std::vector<int32_t> b_shape, std::vector<int32_t> z_shape, bool int8);

// Weights [OC, K] and bias [OC] of the FullyConnected op `fc` (int8: s8 weights, int32 bias).
void add_fc_weights(PlanDesc& p, uint16_t fc, int32_t OC, int32_t K, bool int8);

// Model input bytes for plan `d` (float or int8 patterns).
std::vector<Bytes> inputs_for(const PlanDesc& d, uint32_t seed = 1);

inline std::vector<float> pattern(size_t n, int mod, float scale, int mul = 7) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (float)((int)((i * (size_t)mul + 3) % (size_t)mod) - mod / 2) * scale;
  return v;
}

}  // namespace bandtest
