// A loaded plan of the whole graph that candidate stages and chains are described on, so
// that the runtime's own rules judge them: band kinds and tile facts (band_rules.h), band
// access (check_tile_band / check_chain_band), and the band cost model (band_cost.h via
// plan_cost_source). The graph is lowered and written once as a one-stage plan; candidates
// are scratch stages and tile records over a copy of its index pool, never serialized.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "tigris.h"

namespace tigris::schedule {

class Probe {
 public:
  // Lowers and loads the graph; usable() is false when it cannot (an op without a plan
  // form, more tensors than the runtime's walk holds, a refused plan): then nothing is banded.
  explicit Probe(const ir::Graph& g);
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  bool usable() const { return usable_; }
  const std::string& why_unusable() const { return why_; }

  // Plan tensor index of an IR activation (0xFFFF for constants).
  uint16_t tensor(ir::TensorId id) const { return map_[static_cast<size_t>(id)]; }
  // The lowered op record of IR node i (plan op i).
  const tigris_op_t& op(int i) const;

  // Scratch stages: clear, then add stages (ops [first, end), inputs, outputs) in order.
  void clear();
  uint16_t add_stage(int first, int end, const std::vector<ir::TensorId>& inputs,
                     const std::vector<ir::TensorId>& outputs);
  // Give stage s a tileable record (kind stated in facts.band), or make stages
  // [head, head + len) a chain.
  void set_record(uint16_t s, const tigris_tile_plan_v11_t& record);
  void set_chain(uint16_t head, uint16_t len, uint16_t tile_h, bool line_buffered);
  tigris_stage_t& stage(uint16_t s);
  // The tile record of stage s (set_record first).
  tigris_tile_plan_v11_t& record(uint16_t s);

  // The plan with the scratch stages (valid until the next add_stage/clear); nullptr when
  // the scratch lists do not fit the u16 index pool.
  const tigris_plan_t* plan();

 private:
  bool usable_ = false;
  bool overflow_ = false;
  std::string why_;
  std::vector<uint8_t> bytes_;
  tigris_plan_t loaded_{};
  tigris_plan_t view_{};
  tigris_file_header_t header_{};
  std::vector<uint16_t> pool_;
  size_t pool_base_ = 0;
  std::vector<tigris_stage_t> stages_;
  std::vector<tigris_tile_plan_v11_t> records_;
  std::vector<uint16_t> map_;
};

}  // namespace tigris::schedule
