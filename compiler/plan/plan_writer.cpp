// PlanWriter: PlanDesc -> .tgrs bytes. docs/plan-format.md describes every byte written here.
//
// Records are serialized by copying the packed structs of tigris.h (the one definition of
// the format) into a little-endian byte buffer. Output depends only on the description:
// no pointer order, no hash order, no uninitialised padding.
#include "plan/plan_writer.h"

#include <lz4hc.h>

#include "runtime/src/plan/band_rules.h"
#include "runtime/src/plan/loader_facts.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <string_view>

namespace tigris::plan {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the plan writer copies packed records: little-endian hosts only");

constexpr uint32_t kSectionAlign = 16;
constexpr uint32_t kWeightAlign = 16;
constexpr uint32_t kQuantPage = 65536;  // int32 elements per quant-data page

using Bytes = std::vector<uint8_t>;

[[noreturn]] void fail(const std::string& what) { throw PlanWriteError("plan writer: " + what); }

uint32_t align_up(uint64_t v, uint32_t a, const char* what) {
  uint64_t r = (v + a - 1) / a * a;
  if (r > UINT32_MAX) fail(std::string(what) + " exceeds 4 GiB");
  return static_cast<uint32_t>(r);
}

void pad_to(Bytes& b, uint32_t align) { b.resize(align_up(b.size(), align, "plan"), 0); }

template <typename T>
void put(Bytes& b, const T& rec) {
  const auto* p = reinterpret_cast<const uint8_t*>(&rec);
  b.insert(b.end(), p, p + sizeof(T));
}

void put_bytes(Bytes& b, const Bytes& src) { b.insert(b.end(), src.begin(), src.end()); }

uint16_t to_u16(uint64_t v, const std::string& what) {
  if (v > 0xFFFFu) fail(what + " = " + std::to_string(v) + " exceeds the u16 field");
  return static_cast<uint16_t>(v);
}

uint8_t to_u8(uint64_t v, const std::string& what) {
  if (v > 0xFFu) fail(what + " = " + std::to_string(v) + " exceeds the u8 field");
  return static_cast<uint8_t>(v);
}

// Deduplicated NUL-terminated strings; offset 0 is the empty string.
class StringTable {
 public:
  StringTable() : data_(1, 0) { offsets_[""] = 0; }
  uint32_t add(const std::string& s) {
    if (s.find('\0') != std::string::npos) fail("string '" + s + "' contains a NUL byte");
    auto it = offsets_.find(s);
    if (it != offsets_.end()) return it->second;
    auto off = static_cast<uint32_t>(data_.size());
    data_.insert(data_.end(), s.begin(), s.end());
    data_.push_back(0);
    offsets_.emplace(s, off);
    return off;
  }
  const Bytes& bytes() const { return data_; }

 private:
  Bytes data_;
  std::map<std::string, uint32_t> offsets_;
};

// u16 index lists appended in a fixed order; returns the element offset of each list.
class IndexPool {
 public:
  uint16_t add(const std::vector<uint16_t>& list, const std::string& what) {
    uint16_t off = to_u16(items_.size(), what + " index-pool offset");
    to_u16(list.size(), what + " count");
    items_.insert(items_.end(), list.begin(), list.end());
    return off;
  }
  Bytes bytes() const {
    Bytes b;
    for (uint16_t v : items_) put(b, v);
    return b;
  }

 private:
  std::vector<uint16_t> items_;
};

// i32 dims; identical shapes share one run of the pool.
class ShapePool {
 public:
  uint16_t add(const std::vector<int32_t>& shape, const std::string& what) {
    if (shape.empty()) return 0;
    auto it = offsets_.find(shape);
    if (it != offsets_.end()) return it->second;
    uint16_t off = to_u16(items_.size(), what + " shape-pool offset");
    items_.insert(items_.end(), shape.begin(), shape.end());
    offsets_.emplace(shape, off);
    return off;
  }
  Bytes bytes() const {
    Bytes b;
    for (int32_t v : items_) put(b, v);
    return b;
  }

 private:
  std::vector<int32_t> items_;
  std::map<std::vector<int32_t>, uint16_t> offsets_;
};

uint32_t tensor_size_bytes(const TensorDesc& t) {
  if (t.size_bytes_override >= 0) {
    if (t.size_bytes_override > UINT32_MAX) fail("tensor '" + t.name + "' size override exceeds u32");
    return static_cast<uint32_t>(t.size_bytes_override);
  }
  uint64_t n = tigris_dtype_size(t.dtype);
  for (int32_t d : t.shape) {
    if (d <= 0) return 0;  // deliberately bad shapes: the loader refuses them
    n *= static_cast<uint64_t>(d);
    if (n > UINT32_MAX) fail("tensor '" + t.name + "' is larger than 4 GiB");
  }
  return static_cast<uint32_t>(n);
}

// Owning stage of each op (first stage listing it), for the op record's stage byte.
std::vector<int> op_owner_stages(const PlanDesc& p) {
  std::vector<int> owner(p.ops.size(), 0);
  std::vector<bool> seen(p.ops.size(), false);
  for (size_t s = 0; s < p.stages.size(); ++s) {
    for (uint16_t op : p.stages[s].ops) {
      if (op < owner.size() && !seen[op]) {
        owner[op] = static_cast<int>(s);
        seen[op] = true;
      }
    }
  }
  return owner;
}

struct Pools {
  StringTable strings;
  IndexPool index;
  ShapePool shapes;
};

Bytes tensors_section(const PlanDesc& p, Pools& pools) {
  Bytes b;
  for (const TensorDesc& t : p.tensors) {
    tigris_tensor_t r{};
    r.name_str = pools.strings.add(t.name);
    r.size_bytes = tensor_size_bytes(t);
    r.shape_off = pools.shapes.add(t.shape, "tensor '" + t.name + "'");
    r.ndim = to_u8(t.shape.size(), "tensor '" + t.name + "' rank");
    r.dtype = t.dtype;
    r.flags = t.flags;
    r.quant_param_idx = t.quant;
    r.iface_dtype = t.iface_dtype;
    put(b, r);
  }
  return b;
}

Bytes ops_section(const PlanDesc& p, Pools& pools) {
  std::vector<int> owner = op_owner_stages(p);
  Bytes b;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const OpDesc& o = p.ops[i];
    const std::string what = "op '" + o.name + "'";
    tigris_op_t r{};
    r.name_str = pools.strings.add(o.name);
    r.op_type = o.type;
    r.num_inputs = to_u8(o.inputs.size(), what + " inputs");
    r.num_outputs = to_u8(o.outputs.size(), what + " outputs");
    r.stage = static_cast<uint8_t>((o.stage_byte >= 0 ? o.stage_byte : owner[i]) & 0xFF);
    r.inputs_off = pools.index.add(o.inputs, what + " inputs");
    r.outputs_off = pools.index.add(o.outputs, what + " outputs");
    r.spatial = o.spatial;
    r.weight_idx = o.weight;
    r.bias_idx = o.bias;
    r.fused_act = o.fused_act;
    r.act_min = o.act_min;
    r.act_max = o.act_max;
    r.reserved = 0;
    put(b, r);
  }
  return b;
}

Bytes stages_section(const PlanDesc& p, Pools& pools) {
  Bytes b;
  for (size_t i = 0; i < p.stages.size(); ++i) {
    const StageDesc& s = p.stages[i];
    const std::string what = "stage " + std::to_string(i);
    tigris_stage_t r{};
    r.peak_bytes = s.peak_bytes;
    r.ops_off = pools.index.add(s.ops, what + " ops");
    r.ops_count = static_cast<uint16_t>(s.ops.size());
    r.inputs_off = pools.index.add(s.inputs, what + " inputs");
    r.inputs_count = static_cast<uint16_t>(s.inputs.size());
    r.outputs_off = pools.index.add(s.outputs, what + " outputs");
    r.outputs_count = static_cast<uint16_t>(s.outputs.size());
    r.tile_plan_idx = s.tile_plan;
    r.reserved = 0;
    r.chain_id = s.chain_id;
    r.chain_len = s.chain_len;
    r.chain_tile_h = s.chain_tile_h;
    r.flags = s.flags;
    put(b, r);
  }
  return b;
}

// 24-byte records up to v9, 32-byte scheduling choices at v10, 48-byte records from v11.
Bytes tile_plans_section(const PlanDesc& p) {
  Bytes b;
  for (const tigris_tile_plan_v11_t& t : p.tile_plans) {
    if (p.version >= 11) {
      put(b, t);
    } else if (p.version == 10) {
      put(b, t.choices);
    } else {
      tigris_tile_plan_t r{};
      static_assert(sizeof(r) == 24 && sizeof(t.choices) >= 24);
      std::memcpy(&r, &t.choices, sizeof(r));  // the first 24 bytes are the v9 record
      put(b, r);
    }
  }
  return b;
}

// Weights of a raw block (or of the uncompressed blob), each at a 16-aligned offset from
// its start. Returns the offsets; `out` receives the bytes.
std::vector<uint32_t> lay_out_weights(const PlanDesc& p, size_t first, size_t count, Bytes& out) {
  std::vector<uint32_t> offs;
  for (size_t w = first; w < first + count; ++w) {
    uint32_t at = align_up(out.size(), kWeightAlign, "weight blob");
    out.resize(at, 0);
    offs.push_back(at);
    put_bytes(out, p.weights[w].data);
  }
  return offs;
}

Bytes compress_block(const Bytes& raw, uint16_t compression) {
  if (compression == TIGRIS_COMPRESSION_NONE) return raw;
  if (compression != TIGRIS_COMPRESSION_LZ4) fail("unknown compression " + std::to_string(compression));
  if (raw.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) fail("weight block too large for LZ4");
  const int src_len = static_cast<int>(raw.size());
  Bytes out(static_cast<size_t>(LZ4_compressBound(src_len)));
  int n = LZ4_compress_HC(reinterpret_cast<const char*>(raw.data()), reinterpret_cast<char*>(out.data()), src_len,
                          static_cast<int>(out.size()), LZ4HC_CLEVEL_MAX);
  if (n <= 0) fail("LZ4 compression failed");
  out.resize(static_cast<size_t>(n));
  return out;
}

struct WeightSections {
  Bytes weights;  // WEIGHTS: entries (+ blob when uncompressed)
  Bytes blocks;   // WEIGHT_BLOCKS, empty when the plan has none
};

// The blob of an uncompressed plan starts 16-aligned after the entries from v11, directly
// after them before (the older loaders' layout, see docs/plan-format.md).
uint32_t weight_blob_start(uint32_t version, size_t num_weights) {
  uint32_t entries = static_cast<uint32_t>(num_weights * sizeof(tigris_weight_entry_t));
  return version >= 11 ? align_up(entries, kWeightAlign, "weights") : entries;
}

WeightSections weight_sections(const PlanDesc& p, Pools& pools) {
  WeightSections ws;
  const size_t n = p.weights.size();
  std::vector<uint32_t> offsets(n, 0);
  std::vector<bool> placed(n, false);
  Bytes blob;
  if (p.weight_blocks.empty()) {
    offsets = lay_out_weights(p, 0, n, blob);
    std::fill(placed.begin(), placed.end(), true);
  } else {
    tigris_weight_blocks_header_t h{};
    h.num_blocks = to_u16(p.weight_blocks.size(), "weight block count");
    h.compression = p.compression;
    put(ws.blocks, h);
    Bytes data;
    std::vector<tigris_weight_block_t> entries;
    for (size_t i = 0; i < p.weight_blocks.size(); ++i) {
      const WeightBlockDesc& d = p.weight_blocks[i];
      const std::string what = "weight block " + std::to_string(i);
      if (d.num_weights == 0 || static_cast<size_t>(d.first_weight) + d.num_weights > n)
        fail(what + " names weights outside the weight list");
      Bytes raw;
      std::vector<uint32_t> offs = lay_out_weights(p, d.first_weight, d.num_weights, raw);
      for (size_t k = 0; k < offs.size(); ++k) {
        size_t w = d.first_weight + k;
        if (placed[w]) fail("weight '" + p.weights[w].name + "' is in two weight blocks");
        placed[w] = true;
        offsets[w] = offs[k];
      }
      if (raw.empty()) fail(what + " holds no bytes");
      Bytes packed = compress_block(raw, p.compression);
      tigris_weight_block_t e{};
      e.stage_idx = d.stage;
      e.first_weight_idx = d.first_weight;
      e.num_weights = d.num_weights;
      e.reserved = 0;
      e.blob_offset = static_cast<uint32_t>(data.size());
      e.compressed_size = static_cast<uint32_t>(packed.size());
      e.uncompressed_size = static_cast<uint32_t>(raw.size());
      entries.push_back(e);
      put_bytes(data, packed);
    }
    for (const auto& e : entries) put(ws.blocks, e);
    put_bytes(ws.blocks, data);
  }
  for (size_t w = 0; w < n; ++w) {
    if (!placed[w]) fail("weight '" + p.weights[w].name + "' is in no weight block");
    if (p.weights[w].data.size() > UINT32_MAX) fail("weight '" + p.weights[w].name + "' exceeds 4 GiB");
    tigris_weight_entry_t e{};
    e.name_str = pools.strings.add(p.weights[w].name);
    e.offset = offsets[w];
    e.size_bytes = static_cast<uint32_t>(p.weights[w].data.size());
    put(ws.weights, e);
  }
  if (!blob.empty()) {
    ws.weights.resize(weight_blob_start(p.version, n), 0);
    put_bytes(ws.weights, blob);
  }
  return ws;
}

// Header, 16-byte entries, then the int32 pool in 65536-element pages; a param's
// multipliers and shifts sit together inside one page.
Bytes quant_section(const PlanDesc& p) {
  std::vector<int32_t> pool;
  std::vector<tigris_quant_param_t> entries;
  for (size_t i = 0; i < p.quant.size(); ++i) {
    const QuantDesc& q = p.quant[i];
    const std::string what = "quant param " + std::to_string(i);
    if (q.multipliers.size() != q.shifts.size()) fail(what + " has unequal multiplier and shift counts");
    uint64_t need = 2 * q.multipliers.size();
    if (need > kQuantPage) fail(what + " has more channels than one quant page holds");
    uint64_t in_page = pool.size() % kQuantPage;
    if (in_page + need > kQuantPage) pool.resize((pool.size() / kQuantPage + 1) * kQuantPage, 0);
    tigris_quant_param_t e{};
    e.scale = q.scale;
    e.zero_point = q.zero_point;
    e.num_channels = to_u16(q.multipliers.size(), what + " channels");
    e.page = to_u16(pool.size() / kQuantPage, what + " page");
    e.multiplier_off = static_cast<uint16_t>(pool.size() % kQuantPage);
    e.shift_off = static_cast<uint16_t>(e.multiplier_off + q.multipliers.size());
    pool.insert(pool.end(), q.multipliers.begin(), q.multipliers.end());
    pool.insert(pool.end(), q.shifts.begin(), q.shifts.end());
    entries.push_back(e);
  }
  tigris_quant_header_t h{};
  h.count = to_u16(p.quant.size(), "quant param count");
  h.pages = to_u16(std::max<uint64_t>(1, (pool.size() + kQuantPage - 1) / kQuantPage), "quant pages");
  Bytes b;
  put(b, h);
  for (const auto& e : entries) put(b, e);
  for (int32_t v : pool) put(b, v);
  return b;
}

// Header, 8-byte entries sorted by (op, kind), then the payloads, each 4-aligned in the pool.
Bytes attributes_section(const PlanDesc& p) {
  std::vector<const AttrDesc*> sorted;
  for (const AttrDesc& a : p.attributes) sorted.push_back(&a);
  std::stable_sort(sorted.begin(), sorted.end(), [](const AttrDesc* x, const AttrDesc* y) {
    return x->op != y->op ? x->op < y->op : x->kind < y->kind;
  });
  Bytes data;
  tigris_op_attributes_header_t h{};
  h.count = to_u16(sorted.size(), "attribute count");
  Bytes b;
  put(b, h);
  for (const AttrDesc* a : sorted) {
    pad_to(data, 4);
    tigris_op_attribute_t e{};
    e.op_index = a->op;
    e.type = a->kind;
    e.data_len = to_u8(a->data.size(), "attribute payload of op " + std::to_string(a->op));
    e.data_offset = static_cast<uint32_t>(data.size());
    put(b, e);
    put_bytes(data, a->data);
  }
  put_bytes(b, data);
  return b;
}

// Header, 16-byte entries, then the initial values, each 16-aligned from the section start.
Bytes state_section(const PlanDesc& p) {
  uint64_t derived_bytes = 0;
  for (const StateDesc& s : p.state) derived_bytes = std::max<uint64_t>(derived_bytes, s.offset + s.initial.size());
  if (derived_bytes > UINT32_MAX) fail("state buffer exceeds 4 GiB");
  tigris_state_header_t h{};
  h.count = to_u16(p.state.size(), "state entry count");
  h.reserved = 0;
  h.state_bytes = p.state_bytes != 0 ? p.state_bytes : static_cast<uint32_t>(derived_bytes);
  Bytes b;
  put(b, h);
  uint32_t cursor = align_up(sizeof(h) + p.state.size() * sizeof(tigris_state_entry_t), 16, "state");
  Bytes values;
  for (const StateDesc& s : p.state) {
    tigris_state_entry_t e{};
    e.input = s.input;
    e.output = s.output;
    e.offset = s.offset;
    e.bytes = static_cast<uint32_t>(s.initial.size());
    e.initial = cursor + static_cast<uint32_t>(values.size());
    put(b, e);
    put_bytes(values, s.initial);
    pad_to(values, 16);
  }
  b.resize(cursor, 0);
  put_bytes(b, values);
  return b;
}

Bytes subgraphs_section(const PlanDesc& p, Pools& pools) {
  tigris_subgraphs_header_t h{};
  h.count = to_u16(p.subgraphs.size(), "subgraph count");
  Bytes b;
  put(b, h);
  for (size_t i = 0; i < p.subgraphs.size(); ++i) {
    const SubgraphDesc& g = p.subgraphs[i];
    const std::string what = "subgraph " + std::to_string(i);
    tigris_subgraph_t e{};
    e.first_stage = g.first_stage;
    e.num_stages = g.num_stages;
    e.inputs_off = pools.index.add(g.inputs, what + " inputs");
    e.inputs_count = static_cast<uint16_t>(g.inputs.size());
    e.outputs_off = pools.index.add(g.outputs, what + " outputs");
    e.outputs_count = static_cast<uint16_t>(g.outputs.size());
    put(b, e);
  }
  return b;
}

Bytes memory_section(const PlanDesc& p) {
  tigris_memory_section_t m{};
  m.scheduled_peak = p.scheduled_peak;
  m.slow_peak = p.slow_peak;
  m.reserved0 = 0;
  m.reserved1 = 0;
  Bytes b;
  put(b, m);
  return b;
}

tigris_file_header_t make_header(const PlanDesc& p, uint32_t name_str, uint16_t model_io_off) {
  tigris_file_header_t h{};
  h.magic = TIGRIS_MAGIC;
  h.version = p.version;
  h.section_dir_off = sizeof(tigris_file_header_t);
  h.num_tensors = to_u16(p.tensors.size(), "tensor count");
  h.num_ops = to_u16(p.ops.size(), "op count");
  h.num_stages = to_u16(p.stages.size(), "stage count");
  h.num_tile_plans = to_u16(p.tile_plans.size(), "tile plan count");
  h.budget = p.budget;
  h.peak = p.peak;
  h.model_name_str = name_str;
  h.model_io_off = model_io_off;
  h.num_model_inputs = to_u8(p.model_inputs.size(), "model input count");
  h.num_model_outputs = to_u8(p.model_outputs.size(), "model output count");
  h.num_weights = to_u16(p.weights.size(), "weight count");
  h.num_quant_params = to_u16(p.quant.size(), "quant param count");
  h.flags = p.flags;
  return h;
}

}  // namespace

std::vector<uint8_t> write_plan(const PlanDesc& p) {
  Pools pools;
  // Pool contents are appended in a fixed order: model name, model I/O, tensors, ops,
  // stages, weights, subgraphs.
  const uint32_t name_str = pools.strings.add(p.model_name);
  std::vector<uint16_t> model_io = p.model_inputs;
  model_io.insert(model_io.end(), p.model_outputs.begin(), p.model_outputs.end());
  const uint16_t model_io_off = pools.index.add(model_io, "model I/O");

  std::map<uint32_t, Bytes> sections;  // id -> bytes; ordered by id
  sections[TIGRIS_SEC_TENSORS] = tensors_section(p, pools);
  sections[TIGRIS_SEC_OPS] = ops_section(p, pools);
  if (!p.stages.empty()) sections[TIGRIS_SEC_STAGES] = stages_section(p, pools);
  if (!p.tile_plans.empty()) sections[TIGRIS_SEC_TILE_PLANS] = tile_plans_section(p);
  if (!p.weights.empty()) {
    WeightSections ws = weight_sections(p, pools);
    sections[TIGRIS_SEC_WEIGHTS] = std::move(ws.weights);
    if (!ws.blocks.empty()) sections[TIGRIS_SEC_WEIGHT_BLOCKS] = std::move(ws.blocks);
  } else if (!p.weight_blocks.empty()) {
    fail("weight blocks without weights");
  }
  if (!p.quant.empty()) sections[TIGRIS_SEC_QUANT_PARAMS] = quant_section(p);
  if (!p.attributes.empty()) sections[TIGRIS_SEC_OP_ATTRIBUTES] = attributes_section(p);
  if (!p.state.empty()) sections[TIGRIS_SEC_STATE] = state_section(p);
  if (!p.subgraphs.empty()) sections[TIGRIS_SEC_SUBGRAPHS] = subgraphs_section(p, pools);
  if (p.version >= 11) sections[TIGRIS_SEC_MEMORY] = memory_section(p);
  // The pools last: every other section has added its strings and indices by now.
  sections[TIGRIS_SEC_INDEX_POOL] = pools.index.bytes();
  sections[TIGRIS_SEC_SHAPE_POOL] = pools.shapes.bytes();
  sections[TIGRIS_SEC_STRINGS] = pools.strings.bytes();

  Bytes out;
  put(out, make_header(p, name_str, model_io_off));
  const uint64_t dir_end = out.size() + (sections.size() + 1) * sizeof(tigris_section_entry_t);
  uint64_t cursor = align_up(dir_end, kSectionAlign, "plan");
  for (const auto& [id, bytes] : sections) {
    tigris_section_entry_t e{};
    e.type = id;
    e.offset = static_cast<uint32_t>(cursor);
    put(out, e);
    cursor = align_up(cursor + bytes.size(), kSectionAlign, "plan");
  }
  put(out, tigris_section_entry_t{TIGRIS_SEC_END, 0});
  for (const auto& [id, bytes] : sections) {
    pad_to(out, kSectionAlign);
    put_bytes(out, bytes);
  }
  if (out.size() > UINT32_MAX) fail("plan exceeds 4 GiB");
  const auto file_size = static_cast<uint32_t>(out.size());
  std::memcpy(out.data() + offsetof(tigris_file_header_t, file_size), &file_size, sizeof(file_size));
  return out;
}

namespace {

// The facts the band rules give one stage of a plan loaded without step 29.
tigris_tile_facts_t stage_facts(const tigris_plan_t& plan, size_t s, const tigris_tile_plan_v11_t& rec) {
  tigris_tile_facts_t f{};
  if (!rec.choices.tileable) return f;
  const tigris_stage_t* stage = &plan.stages[s];
  tigris_rt::StageBand band{};
  const std::string what = "stage " + std::to_string(s);
  const uint8_t stated = TIGRIS_TILE_BAND_KIND(rec.facts.band);
  if (stated == TIGRIS_BAND_KIND_NONE) {
    if (tigris_rt::derive_band_kind(&plan, stage, &band) == TIGRIS_BAND_KIND_NONE)
      fail(what + ": no band kind holds for its tile record");
  } else if (stated > TIGRIS_BAND_KIND_CONCAT ||
             !tigris_rt::band_kind_holds(&plan, stage, static_cast<tigris_band_kind_t>(stated),
                                         TIGRIS_TILE_BAND_MODE(rec.facts.band), &band)) {
    fail(what + ": its tile record's band kind " + std::to_string(stated) + " does not hold");
  }
  if (!tigris_rt::band_facts(&plan, stage, &band, &f)) fail(what + ": tile facts do not fit their fields");
  return f;
}

}  // namespace

void fill_tile_facts(PlanDesc& desc) {
  if (desc.version < 11 || desc.tile_plans.empty()) return;
  const std::vector<uint8_t> bytes = write_plan(desc);
  tigris_plan_t plan;
  const tigris_error_t err =
      tigris_rt::load_plan_unverified_facts(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan);
  if (err != TIGRIS_OK)
    fail(std::string("cannot derive tile facts: the plan is refused (") + tigris_error_str(err) + ")");
  std::vector<bool> done(desc.tile_plans.size(), false);
  std::vector<tigris_tile_facts_t> facts(desc.tile_plans.size());
  for (size_t s = 0; s < desc.stages.size(); ++s) {
    const uint16_t idx = desc.stages[s].tile_plan;
    if (idx == TIGRIS_NONE || idx >= desc.tile_plans.size()) continue;
    const tigris_tile_facts_t f = stage_facts(plan, s, desc.tile_plans[idx]);
    if (done[idx] && std::memcmp(&f, &facts[idx], sizeof(f)) != 0)
      fail("tile record " + std::to_string(idx) + " serves stages with different facts");
    facts[idx] = f;
    done[idx] = true;
  }
  for (size_t i = 0; i < desc.tile_plans.size(); ++i) {
    if (done[i]) desc.tile_plans[i].facts = facts[i];
  }
}

}  // namespace tigris::plan
