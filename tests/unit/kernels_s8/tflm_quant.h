// Quantization records of plans built from a TensorFlow Lite Micro dump (tflm_dump.h): a
// tensor's scale and zero point, and a conv-like layer's output factors as TFLite computes them.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/plan/plan_writer.h"
#include "kernels/s8/s8_params.h"
#include "unit/kernels_s8/tflm_dump.h"

namespace s8test {

// A per-tensor quant record (the multiplier/shift pair is a placeholder for non-conv ops).
inline uint16_t tflm_quant(tigris::plan::PlanDesc& p, float scale, int32_t zp, std::vector<int32_t> m = {1 << 30},
                           std::vector<int32_t> s = {1}) {
  tigris::plan::QuantDesc q;
  q.scale = scale;
  q.zero_point = zp;
  q.multipliers = std::move(m);
  q.shifts = std::move(s);
  p.quant.push_back(q);
  return (uint16_t)(p.quant.size() - 1);
}

// Output quant of a conv-like layer: TFLite's factors per weight scale (per tensor for a
// fully connected layer with one weight scale).
inline uint16_t tflm_layer_quant(tigris::plan::PlanDesc& p, const DumpTensor& in, const DumpTensor& w,
                                 const DumpTensor& out, bool fc) {
  std::vector<int32_t> m, s;
  for (float ws : w.scales) {
    int32_t mm = 0;
    int ss = 0;
    tigris_s8::layer_multiplier(in.scales[0], ws, out.scales[0], fc && w.scales.size() == 1, &mm, &ss);
    m.push_back(mm);
    s.push_back(ss);
  }
  return tflm_quant(p, out.scales[0], out.zero_points[0], m, s);
}

}  // namespace s8test
