// Plan writer: every section decoded independently from the bytes (offsets, alignment,
// padding, content), determinism and the errors the writer raises.
#include <gtest/gtest.h>
#include <lz4.h>

#include <cstring>

#include "byte_reader.h"
#include "compiler/plan/plan_writer.h"

using tigris::plan::AttrDesc;
using tigris::plan::OpDesc;
using tigris::plan::PlanDesc;
using tigris::plan::PlanWriteError;
using tigris::plan::QuantDesc;
using tigris::plan::StageDesc;
using tigris::plan::TensorDesc;
using tigris::plan::WeightBlockDesc;
using tigris::plan::WeightDesc;
using tigris::plan::write_plan;
using tigris_test::ByteReader;

namespace {

std::vector<uint8_t> bytes_of(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

// x [1,4,4,2] -> conv(w,b) -> y [1,4,4,3] -> relu -> z ; three weights.
PlanDesc sample_plan() {
  PlanDesc p;
  p.model_name = "sample";
  p.budget = 4096;
  p.peak = 1234;
  p.tensors = {
      {"x", {1, 4, 4, 2}, TIGRIS_DTYPE_FLOAT32, TIGRIS_TENSOR_MODEL_INPUT},
      {"y", {1, 4, 4, 3}, TIGRIS_DTYPE_FLOAT32, 0},
      {"z", {1, 4, 4, 3}, TIGRIS_DTYPE_FLOAT32, TIGRIS_TENSOR_MODEL_OUTPUT},
  };
  OpDesc conv;
  conv.name = "conv";
  conv.type = TIGRIS_OP_CONV;
  conv.inputs = {0};
  conv.outputs = {1};
  conv.spatial.kernel_h = conv.spatial.kernel_w = 3;
  conv.spatial.stride_h = conv.spatial.stride_w = 1;
  conv.spatial.pad_top = conv.spatial.pad_bottom = conv.spatial.pad_left = conv.spatial.pad_right = 1;
  conv.spatial.dilation_h = conv.spatial.dilation_w = conv.spatial.group = 1;
  conv.weight = 0;
  conv.bias = 1;
  OpDesc relu;
  relu.name = "y";  // same string as a tensor name: deduplicated
  relu.type = TIGRIS_OP_RELU;
  relu.inputs = {1};
  relu.outputs = {2};
  p.ops = {conv, relu};
  StageDesc s0;
  s0.ops = {0};
  s0.inputs = {0};
  s0.outputs = {1};
  s0.peak_bytes = 200;
  StageDesc s1;
  s1.ops = {1};
  s1.inputs = {1};
  s1.outputs = {2};
  p.stages = {s0, s1};
  p.weights = {{"w", bytes_of(3 * 3 * 2 * 3 * 4, 1)}, {"b", bytes_of(12, 2)}, {"extra", bytes_of(5, 3)}};
  p.model_inputs = {0};
  p.model_outputs = {2};
  p.scheduled_peak = 777;
  p.slow_peak = 888;
  return p;
}

TEST(PlanWriter, HeaderAndDirectory) {
  PlanDesc p = sample_plan();
  p.flags = TIGRIS_FLAG_XIP;
  auto b = write_plan(p);
  ByteReader r{b};
  EXPECT_EQ(r.u32(0), 0x53524754u);
  EXPECT_EQ(0, std::memcmp(b.data(), "TGRS", 4));
  EXPECT_EQ(r.u32(4), 11u);
  EXPECT_EQ(r.u32(8), b.size());
  EXPECT_EQ(r.u32(12), 48u);
  EXPECT_EQ(r.u16(16), 3);  // tensors
  EXPECT_EQ(r.u16(18), 2);  // ops
  EXPECT_EQ(r.u16(20), 2);  // stages
  EXPECT_EQ(r.u16(22), 0);  // tile plans
  EXPECT_EQ(r.u32(24), 4096u);
  EXPECT_EQ(r.u32(28), 1234u);
  EXPECT_EQ(r.u8(38), 1);
  EXPECT_EQ(r.u8(39), 1);
  EXPECT_EQ(r.u16(40), 3);  // weights
  EXPECT_EQ(r.u16(42), 0);  // quant params
  EXPECT_EQ(r.u32(44), 1u);
  EXPECT_EQ(r.cstr(r.directory().at(7) + r.u32(32)), "sample");

  // Directory: ids strictly increasing, sentinel, sections 16-aligned after it, zero padding.
  auto dir = r.directory();
  std::vector<uint32_t> ids;
  for (auto [id, off] : dir) ids.push_back(id);
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2, 3, 5, 6, 7, 8, 14}));
  size_t dir_end = 48 + (dir.size() + 1) * 8;
  EXPECT_EQ(r.u32(dir_end - 8), 0u);
  EXPECT_EQ(r.u32(dir_end - 4), 0u);
  uint32_t prev = 0;
  for (auto [id, off] : dir) {
    EXPECT_EQ(off % 16, 0u) << "section " << id;
    EXPECT_GE(off, dir_end);
    EXPECT_GE(off, prev);
    prev = off;
  }
  EXPECT_EQ(dir.at(1), (dir_end + 15) / 16 * 16);
  for (size_t i = dir_end; i < dir.at(1); ++i) EXPECT_EQ(b[i], 0) << i;
  // Section lengths follow from the content: each starts at the previous end rounded to 16.
  EXPECT_EQ(dir.at(2), dir.at(1) + (3 * 16 + 15) / 16 * 16);
  EXPECT_EQ(dir.at(3), dir.at(2) + (2 * 38 + 15) / 16 * 16);
  for (size_t i = dir.at(2) + 2 * 38; i < dir.at(3); ++i) EXPECT_EQ(b[i], 0) << i;
  EXPECT_EQ(dir.at(5), dir.at(3) + (2 * 28 + 15) / 16 * 16);
  // MEMORY is last and 16 bytes long.
  EXPECT_EQ(dir.at(14) + 16, b.size());
  EXPECT_EQ(r.u32(dir.at(14)), 777u);
  EXPECT_EQ(r.u32(dir.at(14) + 4), 888u);
  EXPECT_EQ(r.u32(dir.at(14) + 8), 0u);
  EXPECT_EQ(r.u32(dir.at(14) + 12), 0u);
}

TEST(PlanWriter, TensorsShapesStringsAndIndexPool) {
  auto b = write_plan(sample_plan());
  ByteReader r{b};
  auto dir = r.directory();
  const uint32_t T = dir.at(1), O = dir.at(2), S = dir.at(3), IP = dir.at(5), SP = dir.at(6), ST = dir.at(7);
  EXPECT_EQ(r.u8(ST), 0);  // offset 0: the empty string
  // Tensor y: shape [1,4,4,3], float32, size 192 bytes.
  const size_t y = T + 16;
  EXPECT_EQ(r.cstr(ST + r.u32(y)), "y");
  EXPECT_EQ(r.u32(y + 4), 1u * 4 * 4 * 3 * 4);
  EXPECT_EQ(r.u8(y + 10), 4);
  EXPECT_EQ(r.u8(y + 11), TIGRIS_DTYPE_FLOAT32);
  EXPECT_EQ(r.u8(y + 12), 0);
  EXPECT_EQ(r.u16(y + 13), 0xFFFF);
  EXPECT_EQ(r.u8(y + 15), 0);
  for (int d = 0; d < 4; ++d) EXPECT_EQ(r.i32(SP + 4 * (r.u16(y + 8) + d)), (std::vector<int32_t>{1, 4, 4, 3})[d]);
  // y and z share one shape run; x has its own.
  EXPECT_EQ(r.u16(y + 8), r.u16(T + 32 + 8));
  EXPECT_NE(r.u16(T + 8), r.u16(y + 8));
  EXPECT_EQ(r.u8(T + 12), TIGRIS_TENSOR_MODEL_INPUT);
  // Op "y" reuses the tensor's string.
  EXPECT_EQ(r.u32(O + 38), r.u32(y));
  // Op records: type, counts, stage byte, index lists, spatial, weight indices.
  EXPECT_EQ(r.u8(O + 4), TIGRIS_OP_CONV);
  EXPECT_EQ(r.u8(O + 5), 1);
  EXPECT_EQ(r.u8(O + 6), 1);
  EXPECT_EQ(r.u8(O + 7), 0);
  EXPECT_EQ(r.u8(O + 38 + 7), 1);  // relu lives in stage 1
  EXPECT_EQ(r.u16(IP + 2 * r.u16(O + 8)), 0);
  EXPECT_EQ(r.u16(IP + 2 * r.u16(O + 10)), 1);
  EXPECT_EQ(r.u8(O + 12), 3);   // kernel_h
  EXPECT_EQ(r.u16(O + 16), 1);  // pad_top
  EXPECT_EQ(r.u16(O + 28), 1);  // group
  EXPECT_EQ(r.u16(O + 30), 0);  // weight
  EXPECT_EQ(r.u16(O + 32), 1);  // bias
  EXPECT_EQ(r.u8(O + 34), 0);
  EXPECT_EQ(static_cast<int8_t>(r.u8(O + 35)), -128);
  EXPECT_EQ(r.u8(O + 36), 127);
  EXPECT_EQ(r.u8(O + 37), 0);
  EXPECT_EQ(r.u16(O + 38 + 30), 0xFFFF);
  // Model I/O: inputs then outputs at model_io_off.
  EXPECT_EQ(r.u16(IP + 2 * r.u16(36)), 0);
  EXPECT_EQ(r.u16(IP + 2 * r.u16(36) + 2), 2);
  // Stage 1: ops {1}, inputs {1}, outputs {2}, no tile, no chain.
  const size_t s1 = S + 28;
  EXPECT_EQ(r.u16(s1 + 6), 1);
  EXPECT_EQ(r.u16(IP + 2 * r.u16(s1 + 4)), 1);
  EXPECT_EQ(r.u16(IP + 2 * r.u16(s1 + 8)), 1);
  EXPECT_EQ(r.u16(IP + 2 * r.u16(s1 + 12)), 2);
  EXPECT_EQ(r.u16(s1 + 16), 0xFFFF);
  EXPECT_EQ(r.u16(s1 + 20), 0xFFFF);
  EXPECT_EQ(r.u16(s1 + 22), 0);
  EXPECT_EQ(r.u32(S), 200u);
  // Strings: each distinct name stored once.
  std::string all(reinterpret_cast<const char*>(b.data() + ST), r.section_end(7) - ST);
  EXPECT_EQ(all.find("y\0", 0, 2), all.rfind("y\0", std::string::npos, 2));
}

TEST(PlanWriter, UncompressedWeightsAlignedInBlobAndFile) {
  auto b = write_plan(sample_plan());
  ByteReader r{b};
  const uint32_t W = r.directory().at(8);
  const uint32_t blob = W + 48;  // 3 entries (36 bytes) then the blob, 16-aligned at v11
  const std::vector<std::vector<uint8_t>> data = {bytes_of(216, 1), bytes_of(12, 2), bytes_of(5, 3)};
  uint32_t expected_off = 0;
  for (size_t i = 0; i < 3; ++i) {
    const size_t e = W + 12 * i;
    uint32_t off = r.u32(e + 4);
    EXPECT_EQ(off, expected_off);
    EXPECT_EQ(off % 16, 0u);
    EXPECT_EQ((blob + off) % 16, 0u);
    EXPECT_EQ(r.u32(e + 8), data[i].size());
    EXPECT_EQ(0, std::memcmp(b.data() + blob + off, data[i].data(), data[i].size()));
    expected_off = (off + static_cast<uint32_t>(data[i].size()) + 15) / 16 * 16;
  }
  for (size_t i = W + 36; i < blob; ++i) EXPECT_EQ(b[i], 0);
  // Before v11 the blob follows the entries directly (the older loaders' layout).
  PlanDesc old = sample_plan();
  old.version = 9;
  auto ob = write_plan(old);
  ByteReader orr{ob};
  const uint32_t OW = orr.directory().at(8);
  EXPECT_EQ(orr.u32(OW + 12 + 4), 224u);
  EXPECT_EQ(0, std::memcmp(ob.data() + OW + 36 + 224, data[1].data(), 12));
  EXPECT_EQ(orr.directory().count(14), 0u);  // no MEMORY section below v11
}

TEST(PlanWriter, QuantParamsPagedSoArraysNeverCrossAPage) {
  PlanDesc p = sample_plan();
  QuantDesc small{0.5f, -3, {11, 12}, {1, 2}};
  QuantDesc big;  // 30000 channels: 60000 elements, so the third param starts a new page
  big.scale = 0.25f;
  big.multipliers.assign(30000, 7);
  big.shifts.assign(30000, -1);
  big.multipliers[29999] = 99;
  p.quant = {small, big, big};
  auto b = write_plan(p);
  ByteReader r{b};
  const uint32_t Q = r.directory().at(9);
  EXPECT_EQ(r.u16(Q), 3);
  EXPECT_EQ(r.u16(Q + 2), 2);  // pages
  const uint32_t pool = Q + 4 + 3 * 16;
  auto entry = [&](int i) { return Q + 4 + 16 * i; };
  float scale;
  uint32_t raw = r.u32(entry(0));
  std::memcpy(&scale, &raw, 4);
  EXPECT_EQ(scale, 0.5f);
  EXPECT_EQ(r.i32(entry(0) + 4), -3);
  EXPECT_EQ(r.u16(entry(0) + 8), 2);
  EXPECT_EQ(r.u16(entry(0) + 10), 0);
  EXPECT_EQ(r.u16(entry(0) + 12), 2);
  EXPECT_EQ(r.u16(entry(0) + 14), 0);
  EXPECT_EQ(r.i32(pool + 4 * 1), 12);
  EXPECT_EQ(r.i32(pool + 4 * 3), 2);
  // Second param: page 0 from element 4; third: page 1 from element 0.
  EXPECT_EQ(r.u16(entry(1) + 10), 4);
  EXPECT_EQ(r.u16(entry(1) + 12), 30004);
  EXPECT_EQ(r.u16(entry(1) + 14), 0);
  EXPECT_EQ(r.u16(entry(2) + 10), 0);
  EXPECT_EQ(r.u16(entry(2) + 12), 30000);
  EXPECT_EQ(r.u16(entry(2) + 14), 1);
  EXPECT_EQ(r.i32(pool + 4 * (65536 + 29999)), 99);
  EXPECT_EQ(r.i32(pool + 4 * (65536 + 30000)), -1);
  EXPECT_EQ(r.i32(pool + 4 * 60004), 0);  // page padding is zero
  // The pool ends with the last param (section padding, < 16 bytes, follows).
  EXPECT_GE(r.section_end(9) - pool, 4u * (65536 + 60000));
  EXPECT_LT(r.section_end(9) - pool, 4u * (65536 + 60000) + 16);
  EXPECT_EQ(r.u16(42), 3);
}

TEST(PlanWriter, Lz4WeightBlocksDecodeToAlignedLayout) {
  PlanDesc p = sample_plan();
  p.weights[0].data.assign(288, 0);  // compressible
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}, WeightBlockDesc{1, 2, 1}};
  auto b = write_plan(p);
  ByteReader r{b};
  auto dir = r.directory();
  const uint32_t W = dir.at(8), B = dir.at(10);
  EXPECT_EQ(r.section_end(8) - W, 48u);  // entries only (36 bytes) + section padding
  EXPECT_EQ(r.u16(B), 2);
  EXPECT_EQ(r.u16(B + 2), TIGRIS_COMPRESSION_LZ4);
  const uint32_t blobs = B + 4 + 2 * 20;
  const uint32_t e0 = B + 4;
  EXPECT_EQ(r.u16(e0), 0);
  EXPECT_EQ(r.u16(e0 + 2), 0);
  EXPECT_EQ(r.u16(e0 + 4), 2);
  EXPECT_EQ(r.u16(e0 + 6), 0);
  EXPECT_EQ(r.u32(e0 + 8), 0u);
  const uint32_t csize = r.u32(e0 + 12), usize = r.u32(e0 + 16);
  EXPECT_EQ(usize, 288u + 12u);  // w at 0, b at 288 (16-aligned), no trailing padding
  EXPECT_LT(csize, usize);
  std::vector<char> out(usize);
  int n = LZ4_decompress_safe(reinterpret_cast<const char*>(b.data() + blobs), out.data(), static_cast<int>(csize),
                              static_cast<int>(usize));
  ASSERT_EQ(n, static_cast<int>(usize));
  EXPECT_EQ(r.u32(W + 4), 0u);
  EXPECT_EQ(r.u32(W + 12 + 4), 288u);
  EXPECT_EQ(r.u32(W + 24 + 4), 0u);  // block-relative offset
  EXPECT_EQ(0, std::memcmp(out.data() + 288, p.weights[1].data.data(), 12));
  const uint32_t e1 = B + 24;
  EXPECT_EQ(r.u16(e1), 1);
  EXPECT_EQ(r.u32(e1 + 8), csize);
  EXPECT_EQ(r.u32(e1 + 16), 5u);
  // WEIGHT_BLOCKS is the last section before MEMORY: its blobs end where the padding starts.
  EXPECT_EQ((blobs + csize + r.u32(e1 + 12) + 15) / 16 * 16, r.section_end(10));
  std::vector<char> out1(5);
  ASSERT_EQ(LZ4_decompress_safe(reinterpret_cast<const char*>(b.data() + blobs + csize), out1.data(),
                                static_cast<int>(r.u32(e1 + 12)), 5),
            5);
  EXPECT_EQ(0, std::memcmp(out1.data(), p.weights[2].data.data(), 5));

  // Raw blocks: compressed == uncompressed, data stored as laid out.
  p.compression = TIGRIS_COMPRESSION_NONE;
  auto raw = write_plan(p);
  ByteReader rr{raw};
  const uint32_t RB = rr.directory().at(10);
  EXPECT_EQ(rr.u32(RB + 4 + 12), rr.u32(RB + 4 + 16));
  EXPECT_EQ(0, std::memcmp(raw.data() + RB + 44 + 288, p.weights[1].data.data(), 12));
  EXPECT_EQ(0, std::memcmp(raw.data() + RB + 44 + 300, p.weights[2].data.data(), 5));
}

TEST(PlanWriter, AttributesSortedWithAlignedPayloads) {
  PlanDesc p = sample_plan();
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_ALPHA, {1, 2, 3, 4}}, AttrDesc{0, TIGRIS_ATTR_PADS, {9}},
                  AttrDesc{0, TIGRIS_ATTR_EPSILON, {5, 6, 7, 8}}};
  auto b = write_plan(p);
  ByteReader r{b};
  const uint32_t A = r.directory().at(11);
  EXPECT_EQ(r.u16(A), 3);
  EXPECT_EQ(r.u16(A + 2), 0);
  const uint32_t pool = A + 4 + 3 * 8;
  const std::vector<std::pair<uint16_t, uint8_t>> order = {
      {0, TIGRIS_ATTR_EPSILON}, {0, TIGRIS_ATTR_PADS}, {1, TIGRIS_ATTR_ALPHA}};
  const std::vector<uint32_t> offs = {0, 4, 8};
  for (size_t i = 0; i < 3; ++i) {
    const size_t e = A + 4 + 8 * i;
    EXPECT_EQ(r.u16(e), order[i].first);
    EXPECT_EQ(r.u8(e + 2), order[i].second);
    EXPECT_EQ(r.u32(e + 4), offs[i]);
    EXPECT_EQ((pool + r.u32(e + 4)) % 4, 0u);
  }
  EXPECT_EQ(r.u8(A + 4 + 8 + 3), 1);
  EXPECT_EQ(r.u8(pool + 4), 9);
  EXPECT_EQ(r.u8(pool + 5), 0);  // padding before the next payload
  EXPECT_EQ(r.u8(pool + 8), 1);
}

TEST(PlanWriter, StateSubgraphsAndTileRecordsPerVersion) {
  PlanDesc p = sample_plan();
  p.state = {{1, 2, 0, bytes_of(6, 9)}, {0, TIGRIS_NONE, 16, bytes_of(3, 4)}};
  p.subgraphs = {{0, 2, {0}, {2}}};
  tigris_tile_plan_v11_t t{};
  t.choices.tileable = 1;
  t.choices.axis = TIGRIS_TILE_AXIS_HEIGHT;
  t.choices.tile_height = 2;
  t.choices.flags = 0x1;
  t.choices.tile_extent_wide = 2;
  t.facts.tile_extent = 2;
  t.facts.num_tiles = 2;
  t.facts.original_extent = 4;
  t.facts.halo = 2;
  t.facts.band_axis = 1;
  t.facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_STRIPE, 0);
  p.tile_plans = {t};
  auto b = write_plan(p);
  ByteReader r{b};
  auto dir = r.directory();
  const uint32_t ST = dir.at(12);
  EXPECT_EQ(r.u16(ST), 2);
  EXPECT_EQ(r.u32(ST + 4), 19u);  // derived: max(offset + bytes)
  EXPECT_EQ(r.u16(ST + 8), 1);
  EXPECT_EQ(r.u16(ST + 10), 2);
  EXPECT_EQ(r.u32(ST + 16), 6u);
  EXPECT_EQ(r.u32(ST + 20), 48u);  // 8 + 2*16 = 40, rounded to 16
  EXPECT_EQ(r.u16(ST + 24 + 2), 0xFFFF);
  EXPECT_EQ(r.u32(ST + 24 + 12), 64u);
  EXPECT_EQ(0, std::memcmp(b.data() + ST + 64, bytes_of(3, 4).data(), 3));
  const uint32_t G = dir.at(13);
  EXPECT_EQ(r.u16(G), 1);
  EXPECT_EQ(r.u16(G + 4 + 2), 2);
  EXPECT_EQ(r.u16(G + 4 + 6), 1);   // inputs_count
  EXPECT_EQ(r.u16(G + 4 + 10), 1);  // outputs_count
  EXPECT_EQ(r.u16(dir.at(5) + 2 * r.u16(G + 4 + 8)), 2);
  // v11 tile record: 48 bytes; facts at 32.
  const uint32_t TP = dir.at(4);
  EXPECT_EQ(r.section_end(4) - TP, 48u);
  EXPECT_EQ(r.u8(TP), 1);
  EXPECT_EQ(r.u16(TP + 22), 1);
  EXPECT_EQ(r.u32(TP + 24), 2u);
  EXPECT_EQ(r.u32(TP + 36), 2u);
  EXPECT_EQ(r.u32(TP + 40), 4u);
  EXPECT_EQ(r.u16(TP + 44), 2);
  EXPECT_EQ(r.u8(TP + 46), 1);
  EXPECT_EQ(r.u8(TP + 47), TIGRIS_BAND_KIND_STRIPE);
  // v9: 24 bytes; v10: 32 bytes.
  p.version = 9;
  auto b9 = write_plan(p);
  ByteReader r9{b9};
  EXPECT_EQ(r9.directory().at(5) - r9.directory().at(4), 32u);  // 24 rounded to 16
  EXPECT_EQ(r9.u16(r9.directory().at(4) + 22), 1);
  EXPECT_EQ(r9.u32(r9.directory().at(4) + 24), 0u);  // padding, not choices
  p.version = 10;
  auto b10 = write_plan(p);
  ByteReader r10{b10};
  EXPECT_EQ(r10.directory().at(5) - r10.directory().at(4), 32u);
  EXPECT_EQ(r10.u32(r10.directory().at(4) + 24), 2u);
}

TEST(PlanWriter, SameDescriptionSameBytes) {
  PlanDesc p = sample_plan();
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}, WeightBlockDesc{1, 2, 1}};
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_ALPHA, {1, 2, 3, 4}}};
  EXPECT_EQ(write_plan(p), write_plan(p));
  PlanDesc q = p;
  EXPECT_EQ(write_plan(p), write_plan(q));
}

TEST(PlanWriter, StageByteOverrideAndEmptyPlan) {
  PlanDesc p = sample_plan();
  p.ops[1].stage_byte = 0x1A5;
  auto b = write_plan(p);
  ByteReader r{b};
  EXPECT_EQ(r.u8(r.directory().at(2) + 38 + 7), 0xA5);
  PlanDesc empty;
  empty.version = 11;
  auto e = write_plan(empty);
  ByteReader er{e};
  auto dir = er.directory();
  EXPECT_EQ(dir.size(), 6u);                      // tensors, ops, index pool, shape pool, strings, memory
  EXPECT_EQ(er.section_end(7) - dir.at(7), 16u);  // one NUL + padding up to MEMORY
  EXPECT_EQ(er.u8(dir.at(7)), 0);
}

TEST(PlanWriter, RefusesWhatItCannotLayOut) {
  PlanDesc p = sample_plan();
  p.tensors[0].name = std::string("a\0b", 3);
  EXPECT_THROW(write_plan(p), PlanWriteError);
  p = sample_plan();
  p.model_inputs.assign(256, 0);
  EXPECT_THROW(write_plan(p), PlanWriteError);
  p = sample_plan();
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}, WeightBlockDesc{1, 1, 2}};
  EXPECT_THROW(write_plan(p), PlanWriteError);  // weight 1 in two blocks
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}};
  EXPECT_THROW(write_plan(p), PlanWriteError);  // weight 2 in no block
  p = sample_plan();
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_PADS, std::vector<uint8_t>(256)}};
  EXPECT_THROW(write_plan(p), PlanWriteError);
  p = sample_plan();
  QuantDesc q;
  q.multipliers = {1, 2};
  q.shifts = {1};
  p.quant = {q};
  EXPECT_THROW(write_plan(p), PlanWriteError);
  p = sample_plan();
  p.tensors[1].shape = {65536, 65536, 2};
  EXPECT_THROW(write_plan(p), PlanWriteError);
}

}  // namespace
