// Runs and references for the banded-path tests (bands_fixture.h).
#include "bands_fixture.h"

#include <algorithm>

#include "kernels/s8/s8_params.h"

namespace bandtest {

uint16_t add_quant(PlanDesc& p, float scale, int32_t zp) {
  QuantDesc q;
  q.scale = scale;
  q.zero_point = zp;
  q.multipliers = {0};
  q.shifts = {0};
  p.quant.push_back(q);
  return (uint16_t)(p.quant.size() - 1);
}

uint16_t add_conv_quant(PlanDesc& p, float in_scale, const std::vector<float>& w_scales, float out_scale, int32_t zp) {
  QuantDesc q;
  q.scale = out_scale;
  q.zero_point = zp;
  for (float ws : w_scales) {
    int32_t m = 0;
    int s = 0;
    tigris_s8::layer_multiplier(in_scale, ws, out_scale, false, &m, &s);
    q.multipliers.push_back(m);
    q.shifts.push_back(s);
  }
  p.quant.push_back(q);
  return (uint16_t)(p.quant.size() - 1);
}

Bytes pattern_s8(size_t n, uint32_t seed, int lo, int hi) {
  Bytes b(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    b[i] = (uint8_t)(int8_t)(lo + (int)((x >> 16) % (uint32_t)(hi - lo + 1)));
  }
  return b;
}

Bytes float_bytes(const std::vector<float>& v) {
  Bytes b(v.size() * 4);
  memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> as_floats(const Bytes& b) {
  std::vector<float> v(b.size() / 4);
  memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

namespace {


uint64_t normal_stage_bytes(const tigris_plan_t& plan, uint16_t s) {
  const tigris_stage_t& st = plan.stages[s];
  std::vector<uint16_t> seen;
  uint64_t sum = 0;
  auto add = [&](uint16_t t) {
    if (std::find(seen.begin(), seen.end(), t) != seen.end()) return;
    seen.push_back(t);
    if (!(plan.tensors[t].flags & TIGRIS_TENSOR_CONSTANT)) sum += al(plan.tensors[t].size_bytes);
  };
  const uint16_t* ins = tigris_stage_inputs(&plan, &st);
  for (uint16_t i = 0; i < st.inputs_count; ++i) add(ins[i]);
  const uint16_t* ops = tigris_stage_ops(&plan, &st);
  for (uint16_t k = 0; k < st.ops_count; ++k) {
    const tigris_op_t& op = plan.ops[ops[k]];
    for (uint8_t m = 0; m < op.num_outputs; ++m) add(tigris_op_outputs(&plan, &op)[m]);
  }
  return sum;
}

uint64_t plan_peak(const tigris_plan_t& plan, bool banded_only) {
  uint64_t peak = 0;
  for (uint16_t s = 0; s < plan.header->num_stages; ++s) {
    const tigris_stage_t& st = plan.stages[s];
    if (st.chain_len >= 2 && st.chain_id != s) continue;
    uint64_t b = model_peak(plan, s);
    if (b == 0 && !banded_only) b = normal_stage_bytes(plan, s);
    peak = std::max(peak, b);
  }
  return peak;
}

}  // namespace

PlanDesc whole_plan(const PlanDesc& d) {
  PlanDesc w = d;
  w.tile_plans.clear();
  for (auto& s : w.stages) {
    s.tile_plan = TIGRIS_NONE;
    s.chain_id = TIGRIS_NONE;
    s.chain_len = 0;
    s.chain_tile_h = 0;
    s.flags = 0;
  }
  w.scheduled_peak = 0;
  return w;
}

void set_scheduled_peak(PlanDesc& d) {
  Loaded f;
  load(d, &f);
  EXPECT_EQ(f.err, TIGRIS_OK) << tigris_error_str(f.err);
  if (f.err != TIGRIS_OK) return;
  d.scheduled_peak = (uint32_t)plan_peak(f.plan, false);
}

uint64_t banded_peak(const PlanDesc& d) {
  Loaded f;
  load(d, &f);
  return f.err == TIGRIS_OK ? plan_peak(f.plan, true) : 0;
}

RunResult run_plan(const PlanDesc& d, const std::vector<Bytes>& inputs, const RunOptions& o) {
  RunResult r;
  Loaded f;
  load(d, &f);
  EXPECT_EQ(f.err, TIGRIS_OK) << tigris_error_str(f.err);
  if (f.err != TIGRIS_OK) return r;
  r.fast_required = tigris_fast_arena_required(&f.plan);
  const uint32_t fast = o.fast ? o.fast : r.fast_required;
  std::vector<uint8_t> fast_buf(fast + 64), slow_buf(o.slow + 64);
  uint8_t* fp = (uint8_t*)(((uintptr_t)fast_buf.data() + 63u) & ~(uintptr_t)63u);
  uint8_t* sp = (uint8_t*)(((uintptr_t)slow_buf.data() + 63u) & ~(uintptr_t)63u);
  std::vector<void*> ptrs(f.plan.header->num_tensors);
  tigris_mem_t& mem = r.mem;
  EXPECT_EQ(tigris_mem_init(&mem, ptrs.data(), (uint16_t)ptrs.size(), fp, fast, sp, o.slow), TIGRIS_MEM_OK);
  Recorder rec;
  if (o.trace) tigris_mem_set_trace(&mem, Recorder::fn, &rec);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const tigris_error_t e =
        tigris_input_write(&f.plan, &mem, f.plan.model_inputs[i], inputs[i].data(), (uint32_t)inputs[i].size());
    EXPECT_EQ(e, TIGRIS_OK) << tigris_error_str(e);
  }
  r.rc = tigris_run(&f.plan, &mem, o.kernel ? o.kernel : plan_kernel(&f.plan), o.user, &r.stats);
  r.fast_peak = mem.fast_peak;
  r.events = rec.events;
  if (r.rc == TIGRIS_EXEC_OK) {
    for (uint8_t i = 0; i < f.plan.header->num_model_outputs; ++i) {
      const uint16_t t = f.plan.model_outputs[i];
      Bytes out(f.plan.tensors[t].size_bytes);
      EXPECT_EQ(tigris_output_read(&f.plan, &mem, t, out.data(), (uint32_t)out.size()), TIGRIS_OK);
      r.outputs.push_back(out);
    }
  }
  tigris_mem_set_trace(&mem, nullptr, nullptr);
  mem.tensor_ptrs = nullptr;
  return r;
}

std::vector<uint8_t> stage_paths(const RunResult& r) {
  std::vector<uint8_t> paths;
  for (const auto& e : r.events)
    if (e.kind == TIGRIS_TRACE_STAGE_BEGIN) paths.push_back(e.path);
  return paths;
}

tigris_kernel_fn plan_kernel(const tigris_plan_t* plan) {
  return tigris_plan_data_dtype(plan) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
}

uint64_t trace_bytes(const std::vector<tigris_trace_event_t>& ev, uint8_t kind) {
  uint64_t n = 0;
  for (const auto& e : ev)
    if (e.kind == kind) n += e.bytes;
  return n;
}

size_t trace_count(const std::vector<tigris_trace_event_t>& ev, uint8_t kind) {
  size_t n = 0;
  for (const auto& e : ev) n += e.kind == kind;
  return n;
}

RunResult expect_banded_equals_whole(const PlanDesc& banded_in, const std::vector<Bytes>& inputs,
                                     const std::string& what) {
  PlanDesc banded = banded_in;
  set_scheduled_peak(banded);
  RunOptions big;
  big.fast = 1u << 16;
  const RunResult ref = run_plan(whole_plan(banded), inputs, big);
  EXPECT_EQ(ref.rc, TIGRIS_EXEC_OK) << what << ": whole run";
  RunResult r = run_plan(banded, inputs);
  EXPECT_EQ(r.rc, TIGRIS_EXEC_OK) << what << ": " << tigris_exec_error_str(r.rc);
  if (r.rc != TIGRIS_EXEC_OK || ref.rc != TIGRIS_EXEC_OK) return r;
  EXPECT_EQ(r.outputs.size(), ref.outputs.size());
  for (size_t i = 0; i < r.outputs.size() && i < ref.outputs.size(); ++i)
    EXPECT_TRUE(r.outputs[i] == ref.outputs[i]) << what << ": output " << i << " differs";
  // The run holds exactly the plan's scheduled peak (no compressed weights here).
  if (banded.compression == TIGRIS_COMPRESSION_NONE && banded.weight_blocks.empty()) {
    EXPECT_EQ(r.fast_peak, banded.scheduled_peak) << what;
  }
  EXPECT_EQ(trace_bytes(r.events, TIGRIS_TRACE_LOAD), r.stats.loads_bytes) << what;
  EXPECT_EQ(trace_bytes(r.events, TIGRIS_TRACE_SPILL), r.stats.spills_bytes) << what;
  EXPECT_EQ(trace_bytes(r.events, TIGRIS_TRACE_WEIGHTS), r.stats.weight_bytes) << what;
  EXPECT_EQ(trace_count(r.events, TIGRIS_TRACE_TILE_BEGIN), r.stats.total_tiles) << what;
  EXPECT_EQ(trace_count(r.events, TIGRIS_TRACE_STAGE_BEGIN), trace_count(r.events, TIGRIS_TRACE_STAGE_END)) << what;
  return r;
}

}  // namespace bandtest

namespace bandtest {

int32_t spatial_out(uint8_t type, int32_t in, uint32_t k, uint32_t s, uint32_t d, uint32_t pa, uint32_t pb) {
  const int32_t eff = (int32_t)((k - 1) * (d ? d : 1) + 1);
  if (type == TIGRIS_OP_RESIZE) return in * (int32_t)s;
  if (type == TIGRIS_OP_CONV_TRANSPOSE) return (in - 1) * (int32_t)s - (int32_t)(pa + pb) + eff;
  return (in + (int32_t)(pa + pb) - eff) / (int32_t)s + 1;
}

namespace {

uint16_t act_quant(PlanDesc& p, bool int8, float scale, int32_t zp) {
  return int8 ? add_quant(p, scale, zp) : TIGRIS_NONE;
}

// Weights (and bias) of a conv-like op, float or int8 (+ int32 bias).
void add_conv_weights(PlanDesc& p, OpDesc& op, size_t taps_in, int32_t oc, bool int8) {
  const size_t n = taps_in * (size_t)oc;
  if (int8) {
    op.weight = add_weight_bytes(p, pattern_s8(n, 7, -60, 60));
    std::vector<int32_t> b((size_t)oc);
    for (int32_t i = 0; i < oc; ++i) b[(size_t)i] = (i * 37) % 200 - 100;
    Bytes bb(b.size() * 4);
    memcpy(bb.data(), b.data(), bb.size());
    op.bias = add_weight_bytes(p, bb);
  } else {
    op.weight = add_weight(p, pattern(n, 11, 0.125f, 5));
    op.bias = add_weight(p, pattern((size_t)oc, 7, 0.25f, 3));
  }
}

}  // namespace

PlanDesc spatial_plan(const SpatialCase& c, const tigris_tile_plan_v11_t& rec) {
  PlanDesc p;
  const bool rank3 = c.in.size() == 3;
  const uint8_t dt = c.int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const int32_t ic = c.in.back();
  const int32_t oc = c.oc > 0 ? c.oc : ic;
  const tigris_spatial_t& sp = c.sp;
  std::vector<int32_t> out = c.in;
  out[1] = spatial_out(c.type, c.in[1], sp.kernel_h, sp.stride_h, sp.dilation_h, sp.pad_top, sp.pad_bottom);
  if (!rank3) out[2] = spatial_out(c.type, c.in[2], sp.kernel_w, sp.stride_w, sp.dilation_w, sp.pad_left, sp.pad_right);
  out.back() = oc;
  const float in_scale = 0.05f, w_scale = 0.02f, out_scale = 0.1f;
  uint16_t x = add_tensor(p, "x", c.in, TIGRIS_TENSOR_MODEL_INPUT, dt, act_quant(p, c.int8, in_scale, 3));
  uint16_t xs = x;
  std::vector<uint16_t> ops;
  if (c.relu_before) {
    xs = add_tensor(p, "xr", c.in, 0, dt, act_quant(p, c.int8, in_scale, 3));
    ops.push_back(add_op(p, TIGRIS_OP_RELU, {x}, {xs}));
  }
  const bool conv_like = c.type == TIGRIS_OP_CONV || c.type == TIGRIS_OP_DEPTHWISE || c.type == TIGRIS_OP_CONV1D ||
                         c.type == TIGRIS_OP_CONV_TRANSPOSE;
  uint16_t yq = TIGRIS_NONE;
  if (c.int8)
    yq = conv_like ? add_conv_quant(p, in_scale, std::vector<float>((size_t)oc, w_scale), out_scale, -2)
                   : add_quant(p, in_scale, 3);
  uint16_t y = add_tensor(p, "y", out, c.relu_after ? 0 : TIGRIS_TENSOR_MODEL_OUTPUT, dt, yq);
  OpDesc op;
  op.name = "spatial";
  op.type = c.type;
  op.inputs = {xs};
  op.outputs = {y};
  op.spatial = sp;
  const size_t taps = (size_t)sp.kernel_h * (rank3 ? 1u : sp.kernel_w);
  if (c.type == TIGRIS_OP_DEPTHWISE)
    add_conv_weights(p, op, taps, oc, c.int8);
  else if (conv_like)
    add_conv_weights(p, op, taps * (size_t)ic, oc, c.int8);
  p.ops.push_back(op);
  ops.push_back((uint16_t)(p.ops.size() - 1));
  uint16_t last = y;
  if (c.relu_after) {
    last = add_tensor(p, "z", out, TIGRIS_TENSOR_MODEL_OUTPUT, dt,
                      c.int8 ? add_quant(p, conv_like ? out_scale : in_scale, conv_like ? -2 : 3) : TIGRIS_NONE);
    ops.push_back(add_op(p, TIGRIS_OP_RELU, {y}, {last}));
  }
  add_stage(p, ops, {x}, {last});
  p.model_inputs = {x};
  p.model_outputs = {last};
  tile_stage(p, 0, rec);
  return p;
}

std::vector<Bytes> inputs_for(const PlanDesc& d, uint32_t seed) {
  std::vector<Bytes> in;
  for (uint16_t t : d.model_inputs) {
    const TensorDesc& td = d.tensors[t];
    size_t n = 1;
    for (int32_t v : td.shape) n *= (size_t)v;
    if (td.dtype == TIGRIS_DTYPE_INT8)
      in.push_back(pattern_s8(n, seed + t));
    else
      in.push_back(float_bytes(pattern(n, 17 + (int)seed, 0.0625f, 5 + (int)seed * 2)));
  }
  return in;
}

void append_add_operand(PlanDesc& p, std::vector<int32_t> b_shape, std::vector<int32_t> z_shape, bool int8) {
  const uint16_t y = 1;
  p.tensors[y].flags = 0;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const uint16_t b =
      add_tensor(p, "b", b_shape, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.07f, -5) : TIGRIS_NONE);
  const uint16_t z =
      add_tensor(p, "z", z_shape, TIGRIS_TENSOR_MODEL_OUTPUT, dt, int8 ? add_quant(p, 0.15f, 4) : TIGRIS_NONE);
  p.stages[0].ops.push_back(add_op(p, TIGRIS_OP_ADD, {y, b}, {z}));
  p.stages[0].inputs = {0, b};
  p.stages[0].outputs = {z};
  p.model_inputs = {0, b};
  p.model_outputs = {z};
  tigris::plan::fill_tile_facts(p);
}

void add_fc_weights(PlanDesc& p, uint16_t fc, int32_t OC, int32_t K, bool int8) {
  if (int8) {
    p.ops[fc].weight = add_weight_bytes(p, pattern_s8((size_t)OC * K, 5, -50, 50));
    Bytes b((size_t)OC * 4, 0);
    for (int32_t i = 0; i < OC; ++i) b[(size_t)i * 4] = (uint8_t)(i * 9);
    p.ops[fc].bias = add_weight_bytes(p, b);
  } else {
    p.ops[fc].weight = add_weight(p, pattern((size_t)OC * K, 13, 0.125f));
    p.ops[fc].bias = add_weight(p, pattern((size_t)OC, 5, 0.5f));
  }
}

}  // namespace bandtest
