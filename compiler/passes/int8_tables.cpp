// fold_int8_tables: an int8 elementwise region whose only varying input is one tensor x
// computes y = f(x) byte by byte, so it is one 256-entry table. `x · Sigmoid(x)` (SiLU) and
// `x · HardSigmoid(x)` in int8 are two or more ops keeping x, the gate and y live together;
// as a TABLE op only x and y are. The table is computed by running the region itself — the
// same lowering, the same int8 kernels — on the 256 input values, so its bytes are exactly
// what the unfused ops would write (TensorFlow Lite Micro's, where they are).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>

#include "compiler/passes/int8_tables.h"
#include "compiler/passes/ops.h"
#include "compiler/passes/pipeline.h"
#include "compiler/plan/emit.h"
#include "compiler/plan/plan_writer.h"
#include "compiler/schedule/stages.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"

namespace tigris::passes {

namespace {

bool per_tensor_int8(const ir::Tensor& t) {
  return t.dtype == ir::DType::Int8 && t.quant && !t.quant->per_channel() && !t.constant;
}

// An elementwise op that may sit in a region over tensors of `shape`: int8 operands of that
// shape or one-element constants, one int8 output of that shape.
bool region_op(const ir::Graph& g, const ir::Node& n, const ir::Shape& shape) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.outputs[0] < 0 || n.inputs.empty()) return false;
  const ir::Tensor& y = g.tensor(n.outputs[0]);
  if (!per_tensor_int8(y) || y.shape != shape) return false;
  for (ir::TensorId id : n.inputs) {
    if (id < 0) return false;
    const ir::Tensor& t = g.tensor(id);
    if (t.constant ? t.elements() != 1 : !(per_tensor_int8(t) && t.shape == shape)) return false;
  }
  return layout_rule(g, n) == LayoutRule::Elementwise;
}

// The nodes of the region ending at `root`, in graph order: producers are added while every
// reader of their output is in the region and the output is not a run output. Empty when
// the region reads more than one varying tensor; `*source` is the one it reads.
std::vector<int> region_of(const ir::Graph& g, int root, const std::vector<char>& taken, ir::TensorId* source) {
  const ir::Node& last = g.nodes[static_cast<size_t>(root)];
  if (last.outputs.size() != 1 || last.outputs[0] < 0) return {};
  const ir::Shape& shape = g.tensor(last.outputs[0]).shape;
  if (!region_op(g, last, shape)) return {};
  std::set<int> in{root};
  for (bool grew = true; grew;) {
    grew = false;
    for (int i : std::vector<int>(in.begin(), in.end()))
      for (ir::TensorId id : g.nodes[i].inputs) {
        int p = g.producer(id);
        if (p < 0 || in.count(p) || taken[p] || g.is_output(id) || !region_op(g, g.nodes[p], shape)) continue;
        std::vector<int> readers = g.consumers(id);
        if (!std::all_of(readers.begin(), readers.end(), [&](int r) { return in.count(r) > 0; })) continue;
        in.insert(p);
        grew = true;
      }
  }
  std::set<ir::TensorId> produced, varying;
  for (int i : in) produced.insert(g.nodes[i].outputs[0]);
  for (int i : in)
    for (ir::TensorId id : g.nodes[i].inputs)
      if (!g.tensor(id).constant && !produced.count(id)) varying.insert(id);
  if (varying.size() != 1 || in.size() < 2) return {};
  *source = *varying.begin();
  return {in.begin(), in.end()};
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Run a one-input one-output plan of `sub` (one stage) on `input`; nullopt when any step refuses.
std::optional<std::vector<uint8_t>> run_single(const ir::Graph& sub, const std::vector<uint8_t>& input,
                                               size_t output_bytes) {
  std::vector<uint8_t> bytes;
  try {
    bytes = plan::write_plan(plan::describe_plan(sub, schedule::partition(sub, 0), plan::EmitOptions{}));
  } catch (const std::exception&) {
    return std::nullopt;  // no plan form: the ops stay as they are (and lowering says why)
  }
  tigris_plan_t plan;
  if (tigris_plan_load(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan) != TIGRIS_OK) return std::nullopt;
  const uint32_t fast_size = tigris_fast_arena_required(&plan), slow_size = 16384;
  std::unique_ptr<void, FreeDeleter> fast(std::aligned_alloc(64, (fast_size + 127) / 64 * 64));
  std::unique_ptr<void, FreeDeleter> slow(std::aligned_alloc(64, slow_size));
  std::vector<void*> ptrs(plan.header->num_tensors, nullptr);
  tigris_mem_t mem;
  if (tigris_mem_init(&mem, ptrs.data(), plan.header->num_tensors, fast.get(), fast_size, slow.get(), slow_size) !=
      TIGRIS_MEM_OK)
    return std::nullopt;
  if (tigris_input_write(&plan, &mem, plan.model_inputs[0], input.data(), static_cast<uint32_t>(input.size())) !=
      TIGRIS_OK)
    return std::nullopt;
  std::vector<uint8_t> ws(tigris_executor_workspace_required(&plan) + 64), y(output_bytes);
  tigris_kernel_fn kernel =
      tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
  if (tigris_run_with_state(&plan, &mem, kernel, nullptr, nullptr, ws.data(), ws.size(), nullptr, 0) !=
      TIGRIS_EXEC_OK)
    return std::nullopt;
  if (tigris_output_read(&plan, &mem, plan.model_outputs[0], y.data(), static_cast<uint32_t>(y.size())) != TIGRIS_OK)
    return std::nullopt;
  return y;
}

// A graph holding copies of `nodes` of `g` over [256] tensors (constants kept): `x` its input,
// the last node's output its output. `as` retypes the varying tensors (Undefined: keep).
ir::Graph element_graph(const ir::Graph& g, const std::vector<int>& nodes, ir::TensorId x, ir::DType as) {
  ir::Graph sub;
  sub.name = "table";
  sub.format = g.format;
  sub.opset = g.opset;
  std::vector<ir::TensorId> map(g.tensors.size(), ir::kNoTensor);
  auto copy = [&](ir::TensorId id) {
    if (map[static_cast<size_t>(id)] != ir::kNoTensor) return map[static_cast<size_t>(id)];
    ir::Tensor t = g.tensor(id);
    if (!t.constant) {
      t.shape = {256};
      t.layout = ir::Layout::Model;
      t.caller_channels_last = false;
      t.declared_dtype = ir::DType::Undefined;
      if (as != ir::DType::Undefined) {
        t.dtype = as;
        t.quant.reset();
      }
    }
    return map[static_cast<size_t>(id)] = sub.add_tensor(std::move(t));
  };
  sub.inputs = {copy(x)};
  for (int i : nodes) {
    ir::Node n = g.nodes[static_cast<size_t>(i)];
    for (ir::TensorId& id : n.inputs)
      if (id >= 0) id = copy(id);
    for (ir::TensorId& id : n.outputs) id = copy(id);
    sub.nodes.push_back(std::move(n));
  }
  sub.outputs = {sub.nodes.back().outputs[0]};
  return sub;
}

// The table of the int8 region `nodes` (graph order) reading `x`: the region alone, run on
// the 256 int8 values (the table's index is the byte as uint8) with the same kernels.
std::optional<std::vector<uint8_t>> table_of(const ir::Graph& g, const std::vector<int>& nodes, ir::TensorId x) {
  std::vector<uint8_t> every(256);
  for (size_t v = 0; v < 256; ++v) every[v] = static_cast<uint8_t>(v);
  return run_single(element_graph(g, nodes, x, ir::DType::Undefined), every, 256);
}

}  // namespace

std::vector<int64_t> table_entries(const std::vector<uint8_t>& table) {
  std::vector<int64_t> v;
  for (uint8_t b : table) v.push_back(static_cast<int8_t>(b));
  return v;
}

std::optional<std::vector<uint8_t>> dequantized_op_table(const ir::Graph& g, int node, ir::TensorId x,
                                                         const ir::QuantParam& in, const ir::QuantParam& out) {
  for (ir::TensorId id : g.nodes[static_cast<size_t>(node)].inputs)
    if (id >= 0 && g.tensor(id).constant && g.tensor(id).elements() > 1) return std::nullopt;
  ir::Graph sub = element_graph(g, {node}, x, ir::DType::Float32);
  try {
    normalize(sub);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // DequantizeLinear of every int8 value, in float32 as the specification computes it.
  std::vector<float> real(256);
  for (int v = -128; v <= 127; ++v)
    real[static_cast<uint8_t>(v)] = static_cast<float>(v - in.zero_points[0]) * in.scales[0];
  std::vector<uint8_t> bytes(1024);
  std::memcpy(bytes.data(), real.data(), bytes.size());
  std::optional<std::vector<uint8_t>> y = run_single(sub, bytes, 1024);
  if (!y) return std::nullopt;
  // QuantizeLinear: saturate(round_half_even(y / scale) + zero point), in the int8 form.
  std::vector<uint8_t> table(256);
  for (size_t i = 0; i < 256; ++i) {
    float f;
    std::memcpy(&f, y->data() + 4 * i, 4);
    if (std::isnan(f)) return std::nullopt;
    const double q = std::nearbyint(static_cast<double>(f / out.scales[0])) + out.zero_points[0];
    table[i] = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(q, -128.0, 127.0)));
  }
  return table;
}

void fold_int8_tables(ir::Graph& g) {
  std::vector<char> taken(g.nodes.size(), 0);
  for (size_t r = g.nodes.size(); r-- > 0;) {
    if (taken[r]) continue;
    ir::TensorId x = ir::kNoTensor;
    std::vector<int> nodes = region_of(g, static_cast<int>(r), taken, &x);
    if (nodes.empty()) continue;
    std::optional<std::vector<uint8_t>> table = table_of(g, nodes, x);
    if (!table) continue;
    for (int i : nodes) taken[static_cast<size_t>(i)] = 1;
    // The root becomes the table lookup; the region's other ops are dead now (remove_unused).
    ir::Node& root = g.nodes[r];
    root.op = "Table";
    root.inputs = {x};
    root.attrs = {};
    root.attrs.set("table", table_entries(*table));
  }
}

}  // namespace tigris::passes
