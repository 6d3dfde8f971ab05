// Test-side executor stand-ins: run one op of a PlanFixture in bands the way the
// executor does (tigris_mem.h tile context), gathering band buffers from full tensors
// and scattering the computed rows back, so tests can compare banded with whole runs.
#pragma once

#include <cstdint>
#include <vector>

#include "s8_fixture.h"

namespace s8test {

struct BandOptions {
  int32_t band_h = 1;         // output rows per band
  int32_t band_w = 0;         // output columns per tile (0 = full width, no width tiling)
  int32_t in_row_start = 0;   // junk rows placed before the input window in its buffer
  int32_t out_row_start = 0;  // junk rows placed before the output rows in its buffer
};

// Spatial op (conv, depthwise, pools; NHWC or NLC) on input tensor `in` (full data `x`)
// producing `out` (returned, full). Returns false when a kernel call fails.
bool run_spatial_banded(PlanFixture& f, uint16_t op, uint16_t in, const Bytes& x, uint16_t out, const BandOptions& o,
                        Bytes* y);

// Pointwise op: every tensor input whose axis 1 (rank >= 3) matches the output's is
// banded; others are passed whole. inputs[i] = full data of op input i.
bool run_pointwise_banded(PlanFixture& f, uint16_t op, const std::vector<uint16_t>& in_tensors,
                          const std::vector<Bytes>& inputs, uint16_t out, const BandOptions& o, Bytes* y);

// Global reduction banded by input rows, int32 accumulator in tile.reduce_acc.
bool run_reduce_banded(PlanFixture& f, uint16_t op, uint16_t in, const Bytes& x, uint16_t out, int32_t band_in_h,
                       Bytes* y);

}  // namespace s8test
