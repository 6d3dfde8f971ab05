// Writes the loader fuzz seed corpus: small valid plans of every kind the loader accepts
// (schemas 4..11, tiles of each band kind, chains, compressed weights, state, control
// flow, int8) and near-valid variants, each one defect away from loading.
// Usage: make_loader_corpus <directory>
#include <cstdio>
#include <fstream>

#include "unit/loader/loader_fixture.h"

using namespace lf;

namespace {

void save(const std::string& dir, const std::string& name, const Bytes& b) {
  std::ofstream f(dir + "/" + name, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

PlanDesc single(std::vector<TensorDesc> t, std::vector<OpDesc> ops) {
  PlanDesc p;
  p.model_name = "seed";
  p.tensors = std::move(t);
  p.tensors.front().flags |= TIGRIS_TENSOR_MODEL_INPUT;
  p.tensors.back().flags |= TIGRIS_TENSOR_MODEL_OUTPUT;
  p.ops = std::move(ops);
  std::vector<uint16_t> all;
  for (size_t i = 0; i < p.ops.size(); ++i) all.push_back(static_cast<uint16_t>(i));
  p.stages = {stage(all, {0}, {static_cast<uint16_t>(p.tensors.size() - 1)})};
  p.model_inputs = {0};
  p.model_outputs = {static_cast<uint16_t>(p.tensors.size() - 1)};
  p.scheduled_peak = 512;
  return p;
}

PlanDesc stripe() {
  OpDesc c = op(TIGRIS_OP_CONV, "conv", {0}, {1});
  c.spatial = window(3, 2, 1);
  c.weight = 0;
  PlanDesc p = single({tensor("x", {1, 10, 8, 2}), tensor("y", {1, 5, 4, 4}), tensor("z", {1, 5, 4, 4})},
                      {c, op(TIGRIS_OP_RELU, "relu", {1}, {2})});
  p.weights = {weight("w", 4 * 9 * 2 * 4)};
  p.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE))};
  p.stages[0].tile_plan = 0;
  return p;
}

PlanDesc transpose() {
  PlanDesc p = single({tensor("x", {1, 6, 4, 3}), tensor("y", {1, 3, 6, 4})}, {op(TIGRIS_OP_TRANSPOSE, "t", {0}, {1})});
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 3, 1, 2}}};
  p.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 10, facts(10, 3, 24, 0, 1, TIGRIS_BAND_KIND_TRANSPOSE))};
  p.stages[0].tile_plan = 0;
  return p;
}

PlanDesc chain() {
  PlanDesc p = conv_relu();
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 2;
  p.stages[0].chain_tile_h = 4;
  p.stages[0].flags = TIGRIS_STAGE_LINE_BUFFERED;
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}};
  return p;
}

PlanDesc int8_cast() {
  PlanDesc p = single({tensor("x", {1, 4}, 0, TIGRIS_DTYPE_INT8), tensor("y", {1, 4}), tensor("z", {1, 4})},
                      {op(TIGRIS_OP_CAST, "dq", {0}, {1}), op(TIGRIS_OP_CLIP, "c", {1}, {2})});
  p.quant = {QuantDesc{0.1f, -3, {1073741824}, {-2}}};
  p.tensors[0].quant = 0;
  p.tensors[0].iface_dtype = TIGRIS_DTYPE_FLOAT32;
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_CLIP_BOUNDS, {0, 0, 0, 0, 0, 0, 0xC0, 0x40}}};
  return p;
}

PlanDesc flow() {
  PlanDesc d;
  d.model_name = "flow";
  d.tensors = {tensor("c", {1}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_BOOL),
               tensor("v", {4}),
               tensor("o", {4}, TIGRIS_TENSOR_MODEL_OUTPUT),
               tensor("t_in", {4}),
               tensor("t_out", {4}),
               tensor("e_in", {4}),
               tensor("e_out", {4}),
               tensor("s", {4}, TIGRIS_TENSOR_STATE)};
  d.ops = {op(TIGRIS_OP_IF, "if", {0, 7}, {2}), op(TIGRIS_OP_RELU, "tr", {3}, {4}), op(TIGRIS_OP_NEG, "en", {5}, {6})};
  d.attributes = {AttrDesc{0, TIGRIS_ATTR_SUBGRAPHS, {1, 0, 2, 0}}};
  d.stages = {stage({0}, {0, 7}, {2}), stage({1}, {3}, {4}), stage({2}, {5}, {6})};
  d.subgraphs = {SubgraphDesc{0, 1, {0}, {2}}, SubgraphDesc{1, 1, {3}, {4}}, SubgraphDesc{2, 1, {5}, {6}}};
  d.state = {StateDesc{7, TIGRIS_NONE, 0, std::vector<uint8_t>(16, 1)}};
  d.model_inputs = {0};
  d.model_outputs = {2};
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_loader_corpus <directory>\n");
    return 2;
  }
  const std::string dir = argv[1];
  PlanDesc v9 = stripe();
  v9.version = 9;
  PlanDesc v4 = conv_relu();
  v4.version = 4;
  PlanDesc raw = chain();
  raw.compression = TIGRIS_COMPRESSION_NONE;
  PlanDesc hw = stripe();
  hw.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HW, 2, facts(2, 6, 5, 1, 1, TIGRIS_BAND_KIND_HW), 3)};
  const std::vector<std::pair<std::string, PlanDesc>> valid = {{"conv_relu_v11", conv_relu()},
                                                               {"conv_relu_v4", v4},
                                                               {"stripe_v11", stripe()},
                                                               {"stripe_v9", v9},
                                                               {"hw_v11", hw},
                                                               {"transpose_v11", transpose()},
                                                               {"chain_lz4", chain()},
                                                               {"chain_raw", raw},
                                                               {"int8_cast", int8_cast()},
                                                               {"int8_conv", int8_conv()},
                                                               {"flow_state", flow()}};
  for (const auto& [name, desc] : valid) {
    Bytes b = write_plan(desc);
    save(dir, name + ".tgrs", b);
  }
  // Near-valid: one defect each.
  Bytes b = write_plan(stripe());
  Bytes wrong_facts = b;
  put16(wrong_facts, sec(b, TIGRIS_SEC_TILE_PLANS) + 44, 2);  // halo 2 instead of 1
  save(dir, "near_wrong_halo.tgrs", wrong_facts);
  Bytes truncated(b.begin(), b.end() - 20);
  put32(truncated, 8, static_cast<uint32_t>(truncated.size()));
  save(dir, "near_truncated.tgrs", truncated);
  Bytes dir_broken = b;
  put32(dir_broken, dir_entry(b, TIGRIS_SEC_OPS) + 4, sec(b, TIGRIS_SEC_TENSORS) - 8);
  save(dir, "near_directory.tgrs", dir_broken);
  Bytes chain_b = write_plan(chain());
  put16(chain_b, sec(chain_b, TIGRIS_SEC_STAGES) + 28 + 20, 1);  // member names itself as head
  save(dir, "near_chain.tgrs", chain_b);
  Bytes flow_b = write_plan(flow());
  put16(flow_b, sec(flow_b, TIGRIS_SEC_SUBGRAPHS) + 4 + 12, 2);  // graphs overlap
  save(dir, "near_subgraphs.tgrs", flow_b);
  Bytes q = write_plan(int8_cast());
  put32(q, sec(q, TIGRIS_SEC_QUANT_PARAMS) + 4, 0x7FC00000u);  // NaN scale
  save(dir, "near_nan_scale.tgrs", q);
  // Reproducers of load-plus-run findings (tests/unit/loader/hostile_input_test.cpp).
  Bytes odd = write_plan(conv_relu());
  const size_t w0 = sec(odd, TIGRIS_SEC_WEIGHTS) + 4;
  put32(odd, w0, get32(odd, w0) + 1);  // a float weight at an odd address
  save(dir, "near_misaligned_weight.tgrs", odd);
  save(dir, "near_requant_shift.tgrs", write_plan(int8_conv(40)));  // x << 40 in the int8 conv
  std::printf("wrote %zu seeds to %s\n", valid.size() + 8, dir.c_str());
  return 0;
}
