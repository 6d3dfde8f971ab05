// PlanWriter: an in-memory plan description -> .tgrs bytes (schema 11 by default).
//
// The record layouts come from runtime/include/tigris.h, the only definition of
// the format; docs/plan-format.md describes every byte written here. The writer
// lays out pools (index, shape, strings with deduplication), 16-byte aligned
// sections and weights, and LZ4 weight blocks. It checks only what it needs to
// produce well-formed bytes; whether the plan is executable is the loader's call,
// so tests can build deliberately wrong plans with it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tigris.h"

namespace tigris::plan {

struct PlanWriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TensorDesc {
  std::string name;
  std::vector<int32_t> shape;  // stored axis order (channels-last unless LINEAR)
  uint8_t dtype = TIGRIS_DTYPE_FLOAT32;
  uint8_t flags = 0;             // TIGRIS_TENSOR_*
  uint16_t quant = TIGRIS_NONE;  // index into PlanDesc::quant
  uint8_t iface_dtype = 0;       // declared boundary dtype, 0 = dtype
  // size_bytes is product(shape) * dtype size unless overridden (tests of bad plans).
  int64_t size_bytes_override = -1;
};

struct OpDesc {
  std::string name;
  uint8_t type = 0;  // tigris_op_type_t
  std::vector<uint16_t> inputs;
  std::vector<uint16_t> outputs;
  tigris_spatial_t spatial{};
  uint16_t weight = TIGRIS_NONE;  // index into PlanDesc::weights
  uint16_t bias = TIGRIS_NONE;
  uint8_t fused_act = TIGRIS_ACT_NONE;
  int8_t act_min = -128;
  int8_t act_max = 127;
  // The op record's stage byte; -1 = the low byte of the stage that lists the op.
  int stage_byte = -1;
};

struct StageDesc {
  std::vector<uint16_t> ops;
  std::vector<uint16_t> inputs;
  std::vector<uint16_t> outputs;
  uint32_t peak_bytes = 0;
  uint16_t tile_plan = TIGRIS_NONE;  // index into PlanDesc::tile_plans
  uint16_t chain_id = TIGRIS_NONE;
  uint16_t chain_len = 0;
  uint16_t chain_tile_h = 0;
  uint16_t flags = 0;
};

struct WeightDesc {
  std::string name;
  std::vector<uint8_t> data;  // already in the runtime's layout
};

struct QuantDesc {
  float scale = 1.0f;
  int32_t zero_point = 0;
  std::vector<int32_t> multipliers;  // num_channels entries (>= 1) ...
  std::vector<int32_t> shifts;       // ... and as many shifts
};

struct AttrDesc {
  uint16_t op = 0;
  uint8_t kind = 0;           // tigris_attr_kind_t
  std::vector<uint8_t> data;  // at most 255 bytes
};

struct StateDesc {
  uint16_t input = 0;
  uint16_t output = TIGRIS_NONE;
  uint32_t offset = 0;
  std::vector<uint8_t> initial;  // bytes = initial.size()
};

struct SubgraphDesc {
  uint16_t first_stage = 0;
  uint16_t num_stages = 0;
  std::vector<uint16_t> inputs;
  std::vector<uint16_t> outputs;
};

// A compressed weight block: the weights [first_weight, first_weight + num_weights) of one
// stage, laid out 16-byte aligned in one raw block and LZ4-compressed.
struct WeightBlockDesc {
  uint16_t stage = 0;
  uint16_t first_weight = 0;
  uint16_t num_weights = 0;
};

struct PlanDesc {
  uint32_t version = TIGRIS_SCHEMA_VERSION;  // schema written; <= 9 writes 24-byte tile records
  std::string model_name;
  uint32_t budget = 0;  // header budget
  uint32_t peak = 0;    // header unpartitioned peak
  uint32_t flags = 0;   // TIGRIS_FLAG_*

  std::vector<TensorDesc> tensors;
  std::vector<OpDesc> ops;
  std::vector<StageDesc> stages;
  std::vector<tigris_tile_plan_v11_t> tile_plans;  // v9 layout takes the first 24 bytes
  std::vector<WeightDesc> weights;
  std::vector<QuantDesc> quant;
  std::vector<AttrDesc> attributes;  // any order; written sorted by (op, kind)
  std::vector<StateDesc> state;
  uint32_t state_bytes = 0;             // 0 = derived from the entries
  std::vector<SubgraphDesc> subgraphs;  // empty = no SUBGRAPHS section
  std::vector<uint16_t> model_inputs;
  std::vector<uint16_t> model_outputs;

  uint16_t compression = TIGRIS_COMPRESSION_NONE;  // with blocks: NONE stores them raw
  std::vector<WeightBlockDesc> weight_blocks;      // empty = one uncompressed weight blob

  uint32_t scheduled_peak = 0;  // MEMORY section (schema 11+)
  uint32_t slow_peak = 0;
};

// Serialize; throws PlanWriteError when the description cannot be laid out
// (a count or offset beyond its field, a weight block over non-contiguous weights...).
std::vector<uint8_t> write_plan(const PlanDesc& plan);

// Fill the facts block of every schema 11 tile record from the plan itself, by the band
// rules the loader verifies (docs/plan-format.md §7): a tileable record keeps the kind it
// states in facts.band (kind | mode << 4), or, when it states none (0), gets the first kind
// that holds in the executor's order. Untileable records get all-zero facts. Throws
// PlanWriteError naming the stage when the plan does not load (other than its facts), a
// stated kind does not hold, or one record serves stages with different facts. No-op below
// schema 11.
void fill_tile_facts(PlanDesc& plan);

}  // namespace tigris::plan
