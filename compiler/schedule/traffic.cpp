// The slow-memory traffic and halo work of a banded stage or chain, band by band in the
// executor's order (runtime/src/exec/band_tile.cpp): loads of each loaded tensor in the
// space it is first read in (line buffers: only the rows the previous tile did not have),
// reloads in later spaces at every band, whole reads once, spills of every output row once.
#include <algorithm>

#include "compiler/schedule/candidates.h"

namespace tigris::schedule {

namespace {

using tigris_rt::CostOp;
using tigris_rt::CostSource;
using tigris_rt::CostSpace;
using tigris_rt::CostTensor;

bool banded(const CostTensor& t) { return (t.flags & (tigris_rt::COST_CONSTANT | tigris_rt::COST_WHOLE)) == 0; }

uint64_t rect_bytes(const CostSource& src, const CostTensor& t, int64_t rows, int64_t c0, int64_t c1) {
  const int64_t cols = src.hw ? c1 - c0 : static_cast<int64_t>(t.cols);
  if (rows <= 0 || cols <= 0) return 0;
  return static_cast<uint64_t>(t.outer) * static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) * t.cell;
}

// Per tensor id: the space of its first read (loaded tensors), -1 before.
struct FirstSpace {
  std::vector<int> space;
  explicit FirstSpace(const CostSource& src) {
    uint16_t max_id = 0;
    for (uint16_t j = 0; j < src.num_ops; ++j) {
      CostOp op;
      src.op(src.ctx, j, &op);
      for (uint8_t k = 0; k < op.num_inputs; ++k) max_id = std::max(max_id, op.inputs[k]);
      for (uint8_t k = 0; k < op.num_outputs; ++k) max_id = std::max(max_id, op.outputs[k]);
    }
    space.assign(static_cast<size_t>(max_id) + 1, -1);
  }
};

}  // namespace

uint64_t op_macs_per_element(const tigris_plan_t* plan, const tigris_op_t& op) {
  const tigris_spatial_t& sp = op.spatial;
  const uint64_t window = static_cast<uint64_t>(std::max<uint8_t>(sp.kernel_h, 1)) * std::max<uint8_t>(sp.kernel_w, 1);
  const uint16_t* ins = tigris_op_inputs(plan, &op);
  auto channels = [&](uint16_t t) {
    const tigris_tensor_t& r = plan->tensors[t];
    return r.ndim > 0 ? static_cast<uint64_t>(tigris_tensor_shape(plan, &r)[r.ndim - 1]) : 1u;
  };
  const uint64_t group = std::max<uint16_t>(sp.group, 1);
  switch (op.op_type) {
  case TIGRIS_OP_CONV:
  case TIGRIS_OP_CONV1D: return op.num_inputs > 0 ? window * std::max<uint64_t>(channels(ins[0]) / group, 1) : window;
  case TIGRIS_OP_CONV_TRANSPOSE: {
    const uint64_t s = static_cast<uint64_t>(std::max<uint8_t>(sp.stride_h, 1)) * std::max<uint8_t>(sp.stride_w, 1);
    const uint64_t ic = op.num_inputs > 0 ? std::max<uint64_t>(channels(ins[0]) / group, 1) : 1;
    return std::max<uint64_t>(window * ic / s, 1);
  }
  case TIGRIS_OP_DEPTHWISE:
  case TIGRIS_OP_MAX_POOL:
  case TIGRIS_OP_AVG_POOL:
  case TIGRIS_OP_L2_POOL: return window;
  case TIGRIS_OP_FULLY_CONN:
  case TIGRIS_OP_MATMUL: return op.num_inputs > 0 ? channels(ins[0]) : 1;
  default: return 1;
  }
}

bool band_traffic(const CostSource& src, CostSpace* spaces, uint16_t n, uint32_t rows, uint32_t cols,
                  bool line_buffered, const std::vector<uint64_t>& macs, Traffic* out) {
  *out = Traffic{};
  if (n == 0) return false;
  FirstSpace first(src);
  // Whole reads and each loaded tensor's first space; op outputs' spaces.
  std::vector<int> out_space(first.space.size(), -1);
  {
    int space = 0;
    for (uint16_t j = 0; j < src.num_ops; ++j) {
      CostOp op;
      src.op(src.ctx, j, &op);
      for (uint8_t k = 0; k < op.num_inputs; ++k) {
        CostTensor t;
        src.tensor(src.ctx, op.inputs[k], &t);
        if ((t.flags & tigris_rt::COST_CONSTANT) != 0) continue;
        if ((t.flags & tigris_rt::COST_WHOLE) != 0) {
          if (first.space[op.inputs[k]] < 0) out->loads += t.bytes;
          first.space[op.inputs[k]] = 0;
        } else if ((t.flags & tigris_rt::COST_LOADED) && first.space[op.inputs[k]] < 0) {
          first.space[op.inputs[k]] = space;
        }
      }
      if (op.spatial && space + 1 < n) ++space;
      for (uint8_t k = 0; k < op.num_outputs; ++k) {
        out_space[op.outputs[k]] = space;
        CostTensor t;
        src.tensor(src.ctx, op.outputs[k], &t);
        if (t.flags & tigris_rt::COST_SPILLED) out->spills += t.bytes;
      }
    }
  }
  const int32_t R = spaces[n - 1].rows, C = src.hw ? spaces[n - 1].cols : 1;
  const int32_t b = rows < 1 ? 1 : std::min<int32_t>(static_cast<int32_t>(std::min<uint32_t>(rows, 1u << 30)), R);
  const int32_t w = !src.hw || cols < 1 || cols > static_cast<uint32_t>(C) ? C : static_cast<int32_t>(cols);
  uint64_t computed = 0, needed = 0;
  bool first_tile = true;
  std::vector<char> first_done(first.space.size(), 0);
  std::vector<int> reload_space(first.space.size(), -1);
  // Without line buffers a tile's loads and work depend only on its row and column counts in
  // every space: a tile shaped like the one before adds what that one added.
  std::vector<int32_t> shape(2 * n, -1), prev_shape(2 * n, -1);
  uint64_t prev_loads = 0, prev_computed = 0;
  for (int32_t o0 = 0; o0 < R; o0 += b) {
    for (int32_t q0 = 0; q0 < C; q0 += w) {
      const int32_t o1 = std::min(o0 + b, R), q1 = std::min(q0 + w, C);
      if (!tigris_rt::cost_band_ranges(src, spaces, n, o0, o1, q0, q1)) return false;
      for (uint16_t k = 0; k < n; ++k) shape[2 * k] = spaces[k].r1 - spaces[k].r0, shape[2 * k + 1] = spaces[k].c1 - spaces[k].c0;
      if (!line_buffered && shape == prev_shape) {
        out->loads += prev_loads;
        computed += prev_computed;
        continue;
      }
      const uint64_t loads_before = out->loads, computed_before = computed;
      int space = 0;
      uint16_t space_begin = 0;
      std::fill(first_done.begin(), first_done.end(), 0);
      std::fill(reload_space.begin(), reload_space.end(), -1);
      for (uint16_t j = 0; j < src.num_ops; ++j) {
        CostOp op;
        src.op(src.ctx, j, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) {
          const uint16_t id = op.inputs[k];
          CostTensor t;
          src.tensor(src.ctx, id, &t);
          if (!banded(t) || !(t.flags & tigris_rt::COST_LOADED)) continue;
          const CostSpace& sp = spaces[space];
          if (first.space[id] == space && j >= space_begin && first_done[id] == 0) {
            first_done[id] = 1;  // its first space: loaded at the tile's start
            int64_t from = sp.r0;
            if (line_buffered && !first_tile && sp.prev_r1 > sp.r0) from = sp.prev_r1;
            out->loads += rect_bytes(src, t, sp.r1 - from, sp.c0, sp.c1);
          } else if (first.space[id] < space && reload_space[id] != space) {
            reload_space[id] = space;  // a later space: a band per space per tile
            out->loads += rect_bytes(src, t, sp.r1 - sp.r0, sp.c0, sp.c1);
          }
        }
        if (op.spatial && space + 1 < n) ++space, space_begin = static_cast<uint16_t>(j + 1);
        const CostSpace& sp = spaces[space];
        int64_t q = sp.r0;
        if (line_buffered && !first_tile && sp.prev_r1 > sp.r0) q = std::min(sp.prev_r1, sp.r1);
        for (uint8_t k = 0; k < op.num_outputs; ++k) {
          CostTensor t;
          src.tensor(src.ctx, op.outputs[k], &t);
          const uint64_t elems = rect_bytes(src, t, sp.r1 - q, sp.c0, sp.c1) / std::max<uint8_t>(t.elem, 1);
          computed += elems * macs[j];
        }
      }
      if (line_buffered)
        for (uint16_t k = 0; k < n; ++k) spaces[k].prev_r0 = spaces[k].r0, spaces[k].prev_r1 = spaces[k].r1;
      first_tile = false;
      prev_shape = shape;
      prev_loads = out->loads - loads_before;
      prev_computed = computed - computed_before;
    }
  }
  for (uint16_t j = 0; j < src.num_ops; ++j) {
    CostOp op;
    src.op(src.ctx, j, &op);
    for (uint8_t k = 0; k < op.num_outputs; ++k) {
      CostTensor t;
      src.tensor(src.ctx, op.outputs[k], &t);
      needed += static_cast<uint64_t>(t.bytes) / std::max<uint8_t>(t.elem, 1) * macs[j];
    }
  }
  out->halo_macs = computed > needed ? computed - needed : 0;
  return true;
}

}  // namespace tigris::schedule
