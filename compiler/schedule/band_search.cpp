#include "compiler/schedule/band_search.h"

#include <algorithm>

namespace tigris::schedule::detail {

using tigris_rt::CostPeak;

tigris_tile_plan_v11_t record_for(uint8_t kind, uint8_t mode, uint32_t rows, uint32_t cols, uint16_t flags) {
  tigris_tile_plan_v11_t r{};
  r.choices.tileable = 1;
  r.choices.axis = kind == TIGRIS_BAND_KIND_HW ? TIGRIS_TILE_AXIS_HW : TIGRIS_TILE_AXIS_HEIGHT;
  r.choices.tile_height = static_cast<uint16_t>(std::min<uint32_t>(rows, 0xFFFF));
  r.choices.tile_extent_wide = rows;
  r.choices.tile_width = static_cast<uint16_t>(std::min<uint32_t>(cols, 0xFFFF));
  r.choices.flags = flags;
  r.facts.band = TIGRIS_TILE_BAND(kind, mode);
  return r;
}

bool describe(const tigris_plan_t* plan, uint16_t s, tigris_band_kind_t kind, Described* d) {
  if (!tigris_rt::plan_cost_source(plan, s, kind, &d->pctx, &d->src)) return false;
  d->src.ctx = &d->pctx;
  d->n = tigris_rt::cost_spaces(d->src, d->spaces.data(), kSpaces);
  d->macs.clear();
  for (uint16_t j = 0; j < d->src.num_ops; ++j)
    d->macs.push_back(op_macs_per_element(plan, plan->ops[d->pctx.first_op + j]));
  return d->n > 0;
}

uint64_t peak_of(Described& d, uint32_t rows, uint32_t cols, bool lb) {
  CostPeak pk;
  if (!tigris_rt::cost_banded_peak(d.src, d.spaces.data(), d.n, rows, cols, lb, kAlign, &pk)) return UINT64_MAX;
  return pk.peak;
}

// Largest rows in [1, hi] with peak <= budget (0 when none); bytes grow with the band.
uint32_t largest_rows(Described& d, uint32_t hi, uint32_t cols, bool lb, uint64_t budget) {
  if (peak_of(d, 1, cols, lb) > budget) return 0;
  uint32_t lo = 1;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (peak_of(d, mid, cols, lb) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Fill a candidate from a described source banded by rows x cols.
bool finish(Described& d, uint32_t rows, uint32_t cols, bool lb, Candidate* c) {
  CostPeak pk;
  if (!tigris_rt::cost_banded_peak(d.src, d.spaces.data(), d.n, rows, cols, lb, kAlign, &pk)) return false;
  Traffic t;
  if (!band_traffic(d.src, d.spaces.data(), d.n, rows, cols, lb, d.macs, &t)) return false;
  c->peak = pk.peak;
  c->loads = t.loads;
  c->spills = t.spills;
  c->halo_macs = t.halo_macs;
  c->band.tiles = pk.tiles;
  c->band.rows = std::min<uint32_t>(rows, static_cast<uint32_t>(d.spaces[d.n - 1].rows));
  c->band.cols = d.src.hw ? std::min<uint32_t>(cols, static_cast<uint32_t>(d.spaces[d.n - 1].cols)) : 0;
  c->band.extent = static_cast<uint32_t>(d.spaces[d.n - 1].rows);
  c->band.col_extent = d.src.hw ? static_cast<uint32_t>(d.spaces[d.n - 1].cols) : 0;
  c->band.line_buffered = lb;
  c->ok = true;
  return true;
}

}  // namespace tigris::schedule::detail
