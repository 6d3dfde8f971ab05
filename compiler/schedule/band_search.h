// Band trials shared by banded stages (bands.cpp) and chains (chains.cpp): a stage or chain
// of the probe plan described once as a cost source, then banded at candidate sizes.
#pragma once

#include <vector>

#include "compiler/schedule/candidates.h"
#include "plan/band_cost_plan.h"
#include "tigris_config.h"

namespace tigris::schedule::detail {

inline constexpr uint32_t kAlign = TIGRIS_PLAN_MAX_ALIGN;
inline constexpr uint16_t kSpaces = 256;

// A tileable v11 record stating `kind` (facts filled by the plan writer later).
tigris_tile_plan_v11_t record_for(uint8_t kind, uint8_t mode, uint32_t rows, uint32_t cols, uint16_t flags);

struct Described {
  tigris_rt::PlanCostCtx pctx{};
  tigris_rt::CostSource src{};
  std::vector<tigris_rt::CostSpace> spaces = std::vector<tigris_rt::CostSpace>(kSpaces);
  uint16_t n = 0;
  std::vector<uint64_t> macs;  // per source op, per output element
};

// Describe stage s of `plan` banded as `kind` (NONE: the chain headed by s).
bool describe(const tigris_plan_t* plan, uint16_t s, tigris_band_kind_t kind, Described* d);
// The band cost model's peak at rows x cols (UINT64_MAX when not describable).
uint64_t peak_of(Described& d, uint32_t rows, uint32_t cols, bool lb);
// Largest rows in [1, hi] whose peak fits `budget`, 0 when one row does not.
uint32_t largest_rows(Described& d, uint32_t hi, uint32_t cols, bool lb, uint64_t budget);
// A candidate banded by rows x cols: peak, traffic, halo work, band fields.
bool finish(Described& d, uint32_t rows, uint32_t cols, bool lb, Candidate* c);

}  // namespace tigris::schedule::detail
