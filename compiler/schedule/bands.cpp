// Banded standalone stages: which band kinds hold for a range (the runtime's band rules on
// the probe plan), and the band each kind needs to fit the budget (the band cost model).
// Stripes and row/layout bands take the largest band that fits; a stage whose single row
// does not fit takes 2-D tiles, the shape with the least traffic and halo work.
#include <algorithm>
#include <cstring>

#include "compiler/schedule/band_search.h"
#include "plan/band_cost_plan.h"
#include "tigris_config.h"

namespace tigris::schedule {

namespace {

using tigris_rt::CostPeak;
using tigris_rt::StageBand;
using namespace detail;

std::string rows_text(uint32_t rows, uint32_t extent) {
  return std::to_string(rows) + " of " + std::to_string(extent) + " rows";
}

// STRIPE or ROWS: the largest band that fits.
Candidate banded_rows(Probe& probe, uint16_t s, tigris_band_kind_t kind, const StageBand& b, uint64_t budget) {
  Candidate c;
  Described d;
  if (!describe(probe.plan(), s, kind, &d)) return c;
  const uint32_t extent = static_cast<uint32_t>(d.spaces[d.n - 1].rows);
  const uint32_t rows = largest_rows(d, extent, 0, false, budget);
  if (rows == 0 || !finish(d, rows, 0, false, &c)) return Candidate{};
  c.band.halo = b.halo;
  c.decision = (kind == TIGRIS_BAND_KIND_ROWS ? "row bands of " : "stripes of ") + rows_text(rows, extent);
  return c;
}

// HW (rows x columns) or CHANNELS (rows x channels): for each band height, the widest
// tile that fits; the least costly shape wins.
Candidate banded_2d(Probe& probe, uint16_t s, tigris_band_kind_t kind, const StageBand& b, uint64_t budget) {
  Candidate best;
  Described d;
  if (!describe(probe.plan(), s, kind, &d)) return best;
  const uint32_t R = static_cast<uint32_t>(d.spaces[d.n - 1].rows), C = static_cast<uint32_t>(d.spaces[d.n - 1].cols);
  if (peak_of(d, 1, 1, false) > budget) return best;
  std::vector<uint32_t> heights;
  for (uint32_t h = 1; h <= R; h = h < 4 ? h + 1 : h * 2) heights.push_back(h);
  if (heights.back() != R) heights.push_back(R);
  for (uint32_t h : heights) {
    if (peak_of(d, h, 1, false) > budget) break;
    uint32_t lo = 1, hi = C;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (peak_of(d, h, mid, false) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    Candidate c;
    if (!finish(d, h, lo, false, &c)) continue;
    if (!best.ok || c.cost() < best.cost()) best = c;
  }
  if (best.ok && kind == TIGRIS_BAND_KIND_CHANNELS && b.mode == TIGRIS_CHANNELS_MODE_OUTPUT) {
    best.band.halo = b.halo;
    best.decision = "output-channel bands of " + std::to_string(best.band.rows) + " rows x " +
                    std::to_string(best.band.cols) + " channels (" + std::to_string(R) + " rows x " +
                    std::to_string(C) + " output channels; each band reads every input channel and only its " +
                    "channels' weights; no row fits with every output channel)";
  } else if (best.ok && kind == TIGRIS_BAND_KIND_CHANNELS) {
    best.band.halo = b.halo;
    best.decision = "channel bands of " + std::to_string(best.band.rows) + " rows x " +
                    std::to_string(best.band.cols) + " channels (" + std::to_string(R) + " rows x " +
                    std::to_string(C) + " channels; no row fits with every channel)";
  } else if (best.ok) {
    best.band.halo = b.halo;
    best.decision = "2-D tiles of " + std::to_string(best.band.rows) + "x" + std::to_string(best.band.cols) + " (" +
                    std::to_string(R) + "x" + std::to_string(C) + " output)";
  }
  return best;
}

// CHANNELS mode INPUT (a FullyConnected, or a 1x1 Conv over its pixels: a row block of the
// output kept instead of the whole; int8 with an int32 accumulator block, counted by
// plan_stage_peak): rows x input columns summed into the
// whole output, which stays in fast memory. For each band height, the widest column band
// that fits (the runtime's plan_stage_peak: the output and one box); the least costly wins.
// Every input element is loaded once and the output spilled once, whatever the band.
// A KxK Conv (rank 4): blocks of output rows, bands of whole channel blocks (widths are
// multiples of TIGRIS_CONV_CHANNEL_BLOCK, or every channel); the input rows a block reads
// (halo included) are loaded for each block, as plan_conv_input_channels counts them.
Candidate banded_input_channels(Probe& probe, uint16_t s, const StageBand& b, uint64_t budget,
                                const std::vector<ir::TensorId>& inputs, const std::vector<ir::TensorId>& outputs,
                                const ir::Graph& g) {
  Candidate best;
  const uint32_t R = b.extent, K = std::min<uint32_t>(b.col_extent, 0xFFFF);  // tile_width is 16 bits
  if (R == 0 || K == 0) return best;
  const bool kxk = b.rank == 4;
  const uint32_t step = kxk ? TIGRIS_CONV_CHANNEL_BLOCK : 1;  // widths step * m, or (kxk) every channel
  const uint16_t op_index = tigris_stage_ops(probe.plan(), &probe.plan()->stages[s])[0];
  auto width = [&](uint32_t m) { return std::min<uint32_t>(m * step, K); };
  tigris_rt::CostSpace scratch[2];
  auto peak_at = [&](uint32_t rows, uint32_t cols, CostPeak* pk) {
    tigris_tile_plan_v11_t& rec = probe.record(s);
    rec.choices.tile_extent_wide = rows;
    rec.choices.tile_height = static_cast<uint16_t>(std::min<uint32_t>(rows, 0xFFFF));
    rec.choices.tile_width = static_cast<uint16_t>(cols);
    return tigris_rt::plan_stage_peak(probe.plan(), s, kAlign, scratch, 2, pk) ? pk->peak : UINT64_MAX;
  };
  CostPeak pk;
  if (peak_at(1, width(1), &pk) > budget) return best;
  std::vector<uint32_t> heights;
  for (uint32_t h = 1; h <= R; h = h < 4 ? h + 1 : h * 2) heights.push_back(h);
  if (heights.back() != R) heights.push_back(R);
  for (uint32_t h : heights) {
    if (peak_at(h, width(1), &pk) > budget) break;
    uint32_t lo = 1, hi = (K + step - 1) / step;  // in steps
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (peak_at(h, width(mid), &pk) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    Candidate c;
    c.peak = peak_at(h, width(lo), &pk);
    c.ok = true;
    c.loads = tensor_bytes(g, inputs);
    uint64_t conv_peak = 0, conv_loads = 0;
    if (kxk &&
        tigris_rt::plan_conv_input_channels(probe.plan(), op_index, h, width(lo), kAlign, &conv_peak, &conv_loads))
      c.loads = conv_loads;  // halo rows loaded again for each block
    c.spills = tensor_bytes(g, outputs);
    c.band.rows = h;
    c.band.cols = width(lo);
    c.band.extent = R;
    c.band.col_extent = b.col_extent;
    c.band.tiles = pk.tiles;
    c.band.halo = b.halo;
    if (!best.ok || c.cost() < best.cost()) best = c;
  }
  if (best.ok && kxk) {
    const uint64_t out_bytes = tensor_bytes(g, outputs);
    best.decision = "input-channel bands of " + std::to_string(best.band.rows) + " rows x " +
                    std::to_string(best.band.cols) + " input channels of a Conv (" + std::to_string(R) +
                    " output rows x " + std::to_string(b.col_extent) + " input channels; a block of " +
                    std::to_string(best.band.rows) + " output rows is kept in fast memory while each band of " +
                    "the input rows it reads (halo " + std::to_string(b.halo) + ") adds its channels' products, " +
                    "then spilled; bands are whole blocks of " + std::to_string(TIGRIS_CONV_CHANNEL_BLOCK) +
                    " channels, the kernel's summation order; each block loads its input rows once (" +
                    std::to_string(best.loads) + " B in all, halo rows again), the output (" +
                    std::to_string(out_bytes) + " B) spilled once; no output row fits with every input channel)";
  } else if (best.ok && probe.plan()->ops[op_index].op_type == TIGRIS_OP_CONV) {
    const uint64_t out_bytes = tensor_bytes(g, outputs);
    best.decision = "input-channel bands of " + std::to_string(best.band.rows) + " pixels x " +
                    std::to_string(best.band.cols) + " input channels of a 1x1 Conv (" + std::to_string(R) +
                    " pixels x " + std::to_string(b.col_extent) +
                    " input channels; each band reads only its channels of the input and weights and adds their " +
                    "products to a block of " + std::to_string(best.band.rows) + " output pixels kept in fast " +
                    "memory, spilled after its last band; the input is loaded once, the output (" +
                    std::to_string(out_bytes) + " B) spilled once)";
  } else if (best.ok) {
    const uint64_t out_bytes = tensor_bytes(g, outputs);
    best.decision = "input-channel bands of " + std::to_string(best.band.rows) + " rows x " +
                    std::to_string(best.band.cols) + " input columns (" + std::to_string(R) + " rows x " +
                    std::to_string(b.col_extent) + " input columns; each band reads only its columns of the input " +
                    "and weights and adds their products to the whole output (" + std::to_string(out_bytes) +
                    " B) kept in fast memory; the input is loaded once)";
  }
  const tigris_op_t& op = probe.plan()->ops[op_index];
  if (best.ok && probe.plan()->tensors[tigris_op_inputs(probe.plan(), &op)[0]].dtype == TIGRIS_DTYPE_INT8)
    best.decision += "; int8: the band's rows keep an int32 accumulator (4 B an output element), the bias and "
                     "requantization after the last band";
  return best;
}

// Single-op layout kinds and by-input reductions: the largest band that fits.
Candidate banded_layout(Probe& probe, uint16_t s, uint8_t kind, const StageBand& b, uint64_t budget,
                        const std::vector<ir::TensorId>& inputs, const std::vector<ir::TensorId>& outputs,
                        const ir::Graph& g) {
  (void)g;
  Candidate c;
  tigris_rt::CostSpace scratch[2];
  auto peak_at = [&](uint32_t rows) {
    tigris_tile_plan_v11_t& rec = probe.record(s);
    rec.choices.tile_extent_wide = rows;
    rec.choices.tile_height = static_cast<uint16_t>(std::min<uint32_t>(rows, 0xFFFF));
    CostPeak pk;
    if (!tigris_rt::plan_stage_peak(probe.plan(), s, kAlign, scratch, 2, &pk)) return UINT64_MAX;
    return pk.peak;
  };
  if (peak_at(1) > budget) return c;
  uint32_t lo = 1, hi = b.extent;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (peak_at(mid) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  c.peak = peak_at(lo);
  c.ok = true;
  c.loads = tensor_bytes(g, inputs);
  c.spills = tensor_bytes(g, outputs);
  c.band.rows = lo;
  c.band.extent = b.extent;
  c.band.tiles = (b.extent + lo - 1) / lo;
  static const char* names[] = {
      "", "reshape bands", "leading bands", "row bands", "transpose bands", "reduction by input rows", "", "",
      "", "concat bands"};
  const bool flat = kind == TIGRIS_BAND_KIND_BY_INPUT && b.mode == TIGRIS_BY_INPUT_MODE_FLAT;
  c.decision = flat ? "reduction by blocks of " + std::to_string(lo) + " of " + std::to_string(b.extent) +
                         " input elements (one input row is over budget)"
                   : std::string(names[kind <= 9 ? kind : 0]) + " of " + std::to_string(lo) + " of " +
                         std::to_string(b.extent);
  return c;
}

// CONCAT mode BLOCKS: bands of units of the concat axis x blocks of the axes before it (an
// NHWC channel concat: pixels x channels). Every unit with the most blocks that fit; where
// one block of every unit does not fit, one block of the most units that fit.
Candidate banded_concat_blocks(Probe& probe, uint16_t s, const StageBand& b, uint64_t budget,
                               const std::vector<ir::TensorId>& inputs, const std::vector<ir::TensorId>& outputs,
                               const ir::Graph& g) {
  Candidate c;
  tigris_rt::CostSpace scratch[2];
  auto peak_at = [&](uint32_t units, uint32_t blocks) {
    tigris_tile_plan_v11_t& rec = probe.record(s);
    rec.choices.tile_extent_wide = units;
    rec.choices.tile_height = static_cast<uint16_t>(std::min<uint32_t>(units, 0xFFFF));
    rec.choices.tile_width = static_cast<uint16_t>(blocks);
    CostPeak pk;
    if (!tigris_rt::plan_stage_peak(probe.plan(), s, kAlign, scratch, 2, &pk)) return UINT64_MAX;
    return pk.peak;
  };
  auto largest = [&](uint32_t hi, auto fits) {  // the largest v in [1, hi] with fits(v)
    uint32_t lo = 1;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  };
  const uint32_t max_blocks = std::min<uint32_t>(b.col_extent, 0xFFFF);
  uint32_t units = b.extent, blocks = 1;
  if (peak_at(1, 1) > budget || max_blocks < 1) return c;
  if (peak_at(units, 1) <= budget)
    blocks = largest(max_blocks, [&](uint32_t w) { return peak_at(units, w) <= budget; });
  else
    units = largest(b.extent, [&](uint32_t u) { return peak_at(u, 1) <= budget; });
  c.peak = peak_at(units, blocks);
  c.ok = true;
  c.loads = tensor_bytes(g, inputs);
  c.spills = tensor_bytes(g, outputs);
  c.band.rows = units;
  c.band.cols = blocks;
  c.band.extent = b.extent;
  c.band.col_extent = b.col_extent;
  c.band.tiles = ((b.extent + units - 1) / units) * ((b.col_extent + blocks - 1) / blocks);
  c.decision = "concat blocks of " + std::to_string(blocks) + " of " + std::to_string(b.col_extent) + " blocks x " +
               std::to_string(units) + " of " + std::to_string(b.extent) +
               " units (one unit of every block is over budget; each block reads only the inputs that cover it)";
  return c;
}

}  // namespace

double Candidate::cost() const {
  return static_cast<double>(loads + spills) + kMacWeight * static_cast<double>(halo_macs) +
         kTileWeight * static_cast<double>(band.tiles) + kStageWeight;
}

namespace {

struct KindTry {
  uint8_t kind;
  uint16_t flags;
  uint8_t mode = 0xFF;  // the mode asked for (0xFF: the one the stage gives)
};

constexpr KindTry kKinds[] = {
    {TIGRIS_BAND_KIND_STRIPE, 0},    {TIGRIS_BAND_KIND_HW, 0},
    {TIGRIS_BAND_KIND_CHANNELS, 0},  {TIGRIS_BAND_KIND_CHANNELS, 0, TIGRIS_CHANNELS_MODE_INPUT},
    {TIGRIS_BAND_KIND_ROWS, 0},      {TIGRIS_BAND_KIND_BY_INPUT, 0},
    {TIGRIS_BAND_KIND_BY_INPUT, 0, TIGRIS_BY_INPUT_MODE_FLAT},
    {TIGRIS_BAND_KIND_TRANSPOSE, 0}, {TIGRIS_BAND_KIND_TRANSPOSE, TIGRIS_TILE_BAND_ON_COLUMNS},
    {TIGRIS_BAND_KIND_RESHAPE, 0},   {TIGRIS_BAND_KIND_LEADING, 0},
    {TIGRIS_BAND_KIND_CONCAT, 0},    {TIGRIS_BAND_KIND_CONCAT, 0, TIGRIS_CONCAT_MODE_BLOCKS}};

// Calls fn(kind try, stage band) for every kind whose conditions, band access and facts
// hold for ops [first, end) as stage 0 of the probe (with a record stating the kind).
template <typename Fn>
void each_kind(Probe& probe, int first, int end, const std::vector<ir::TensorId>& inputs,
               const std::vector<ir::TensorId>& outputs, Fn fn) {
  if (inputs.empty() || outputs.empty() || inputs.size() > kMaxStageInputs || outputs.size() > kMaxStageOutputs) return;
  for (const KindTry& t : kKinds) {
    const auto kind = static_cast<tigris_band_kind_t>(t.kind);
    if (kind == TIGRIS_BAND_KIND_CONCAT && end - first != 1) continue;  // one op: skip the probe
    if (t.mode == TIGRIS_CHANNELS_MODE_INPUT && end - first != 1) continue;  // one FullyConnected
    probe.clear();
    const uint16_t s = probe.add_stage(first, end, inputs, outputs);
    probe.set_record(s, record_for(t.kind, t.mode == 0xFF ? 0 : t.mode, 1, 1, t.flags));
    const tigris_plan_t* plan = probe.plan();
    if (plan == nullptr) return;
    StageBand b;
    bool holds = tigris_rt::band_kind_holds(plan, &plan->stages[s], kind, t.mode, &b);
    if (!holds && t.mode == TIGRIS_CHANNELS_MODE_INPUT) {  // a KxK Conv: bands of whole channel blocks
      probe.record(s).choices.tile_width = TIGRIS_CONV_CHANNEL_BLOCK;
      holds = tigris_rt::band_kind_holds(plan, &plan->stages[s], kind, t.mode, &b);
    }
    if (!holds) continue;
    probe.record(s).facts.band = TIGRIS_TILE_BAND(t.kind, b.mode);  // the mode the stage gives
    tigris_tile_facts_t facts;
    if (tigris_rt::check_tile_band(plan, &plan->stages[s], &b) != TIGRIS_OK ||
        !tigris_rt::band_facts(plan, &plan->stages[s], &b, &facts))
      continue;
    if (!fn(t, s, b)) return;
  }
}

void label(Candidate& c, const KindTry& t, const StageBand& b) {
  c.form = StageForm::Banded;
  c.band.kind = t.kind;
  c.band.mode = b.mode;
  c.band.flags = t.flags;
  c.band.axis = t.kind == TIGRIS_BAND_KIND_HW ? TIGRIS_TILE_AXIS_HW : TIGRIS_TILE_AXIS_HEIGHT;
  c.band.band_axis = b.axis;
}

}  // namespace

Candidate best_banded(Probe& probe, const ir::Graph& g, int first, int end, const std::vector<ir::TensorId>& inputs,
                      const std::vector<ir::TensorId>& outputs, uint64_t budget) {
  Candidate best;
  bool stripe_fits = false, input_rows_fit = false, concat_units_fit = false;
  each_kind(probe, first, end, inputs, outputs, [&](const KindTry& t, uint16_t s, const StageBand& b) {
    // One row fits: no need for columns or channel bands (nor, for a reduction, element blocks:
    // whole rows run the kernel's row loop).
    if ((t.kind == TIGRIS_BAND_KIND_HW || t.kind == TIGRIS_BAND_KIND_CHANNELS) && stripe_fits) return true;
    const bool flat = t.kind == TIGRIS_BAND_KIND_BY_INPUT && b.mode == TIGRIS_BY_INPUT_MODE_FLAT;
    if (flat && input_rows_fit) return true;
    const bool blocks = t.kind == TIGRIS_BAND_KIND_CONCAT && b.mode == TIGRIS_CONCAT_MODE_BLOCKS;
    if (blocks && concat_units_fit) return true;  // bands of every block fit: no blocks needed
    Candidate c;
    if (t.kind == TIGRIS_BAND_KIND_CHANNELS && b.mode == TIGRIS_CHANNELS_MODE_INPUT) {
      c = banded_input_channels(probe, s, b, budget, inputs, outputs, g);
    } else if (t.kind == TIGRIS_BAND_KIND_STRIPE || t.kind == TIGRIS_BAND_KIND_ROWS) {
      c = banded_rows(probe, s, static_cast<tigris_band_kind_t>(t.kind), b, budget);
      stripe_fits = stripe_fits || (c.ok && t.kind == TIGRIS_BAND_KIND_STRIPE);
    } else if (t.kind == TIGRIS_BAND_KIND_HW || t.kind == TIGRIS_BAND_KIND_CHANNELS) {
      c = banded_2d(probe, s, static_cast<tigris_band_kind_t>(t.kind), b, budget);
    } else if (blocks) {
      c = banded_concat_blocks(probe, s, b, budget, inputs, outputs, g);
    } else {
      c = banded_layout(probe, s, t.kind, b, budget, inputs, outputs, g);
    }
    concat_units_fit = concat_units_fit || (c.ok && t.kind == TIGRIS_BAND_KIND_CONCAT && !blocks);
    input_rows_fit = input_rows_fit || (c.ok && t.kind == TIGRIS_BAND_KIND_BY_INPUT && !flat);
    if (c.ok) {
      label(c, t, b);
      if (!best.ok || c.cost() < best.cost()) best = c;
    }
    return true;
  });
  return best;
}

uint64_t op_floor(Probe& probe, const ir::Graph& g, const Usage& u, int i) {
  std::vector<ir::TensorId> inputs, outputs;
  range_io(g, u, i, i + 1, &inputs, &outputs);
  uint64_t best = normal_stage_peak(g, u, i, i + 1);
  if (!probe.usable()) return best;
  each_kind(probe, i, i + 1, inputs, outputs, [&](const KindTry& t, uint16_t s, const StageBand& b) {
    uint64_t peak = UINT64_MAX;
    const bool input_chans = t.kind == TIGRIS_BAND_KIND_CHANNELS && b.mode == TIGRIS_CHANNELS_MODE_INPUT;
    if (!input_chans && (t.kind == TIGRIS_BAND_KIND_STRIPE || t.kind == TIGRIS_BAND_KIND_ROWS ||
                         t.kind == TIGRIS_BAND_KIND_HW || t.kind == TIGRIS_BAND_KIND_CHANNELS)) {
      Described d;
      if (describe(probe.plan(), s, static_cast<tigris_band_kind_t>(t.kind), &d)) peak = peak_of(d, 1, 1, false);
    } else {
      tigris_rt::CostSpace scratch[2];
      CostPeak pk;
      if (tigris_rt::plan_stage_peak(probe.plan(), s, kAlign, scratch, 2, &pk)) peak = pk.peak;
    }
    best = std::min(best, peak);
    return true;
  });
  return best;
}

}  // namespace tigris::schedule
