// Loader refusals, steps 1-13: arguments, header, directory, required sections, pools,
// record tables, quant header, strings and model I/O. Each test starts from a plan that
// loads and breaks one thing.
#include <fstream>
#include <iterator>

#include "loader_fixture.h"

using namespace lf;

namespace {

Bytes good() { return write_plan(conv_relu()); }

TEST(LoaderRefusals, ValidBaselineLoads) { EXPECT_EQ(load_err(good()), TIGRIS_OK); }

TEST(LoaderRefusals, NullArguments) {
  Bytes b = good();
  EXPECT_EQ(tigris_plan_load(b.data(), static_cast<uint32_t>(b.size()), nullptr), TIGRIS_ERR_NULL);
  tigris_plan_t p;
  std::memset(&p, 0x5A, sizeof(p));
  EXPECT_EQ(tigris_plan_load(nullptr, 100, &p), TIGRIS_ERR_NULL);
  EXPECT_TRUE(all_zero(p));
  tigris_plan_limits_t req;
  std::memset(&req, 0x5A, sizeof(req));
  EXPECT_EQ(tigris_plan_load_ex(b.data(), static_cast<uint32_t>(b.size()), nullptr, &req), TIGRIS_ERR_NULL);
  EXPECT_EQ(req.tensors, 0);
}

TEST(LoaderRefusals, TooSmall) {
  Bytes b = good();
  b.resize(47);
  put32(b, 8, 47);
  EXPECT_EQ(load_err(b), TIGRIS_ERR_TOO_SMALL);
  uint8_t one = 0;
  tigris_plan_t plan;
  EXPECT_EQ(tigris_plan_load(&one, 0, &plan), TIGRIS_ERR_TOO_SMALL);
  EXPECT_TRUE(all_zero(plan));
}

TEST(LoaderRefusals, BadMagic) {
  Bytes b = good();
  b[3] = 'X';
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_MAGIC);
}

TEST(LoaderRefusals, BadVersion) {
  for (uint32_t v : {0u, 1u, 3u, 12u, 0xFFFFFFFFu}) {
    Bytes b = good();
    put32(b, 4, v);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_VERSION) << v;
  }
  // Schema 10 is accepted only without tile records.
  PlanDesc p = conv_relu();
  p.version = 10;
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  p.tile_plans = {tigris_tile_plan_v11_t{}};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_VERSION);
}

TEST(LoaderRefusals, LegacySchema1PlanIsBadVersion) {
#if TIGRIS_HAVE_MODELS
  std::ifstream f(std::string(TIGRIS_MODELS_DIR) + "/plans/legacy_schema1_conv_relu_chain.tgrs", std::ios::binary);
  ASSERT_TRUE(f.good());
  Bytes b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GE(b.size(), 48u);
  EXPECT_EQ(get32(b, 4), 1u);
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_VERSION);
#else
  GTEST_SKIP() << "models folder " << TIGRIS_MODELS_DIR << " is absent";
#endif
}

TEST(LoaderRefusals, BadSize) {
  Bytes b = good();
  put32(b, 8, static_cast<uint32_t>(b.size() + 1));
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SIZE);
  Bytes c = good();
  c.push_back(0);  // buffer longer than file_size
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SIZE);
}

TEST(LoaderRefusals, DirectoryDefects) {
  {  // directory offset inside the header
    Bytes b = good();
    put32(b, 12, 40);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // directory past the end: no entry, no sentinel
    Bytes b = good();
    put32(b, 12, static_cast<uint32_t>(b.size() - 4));
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // unknown section id
    Bytes b = good();
    put32(b, dir_entry(b, TIGRIS_SEC_MEMORY), TIGRIS_SEC_COUNT);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // ids not increasing (duplicate)
    Bytes b = good();
    put32(b, dir_entry(b, TIGRIS_SEC_OPS), TIGRIS_SEC_TENSORS);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // offsets decreasing
    Bytes b = good();
    put32(b, dir_entry(b, TIGRIS_SEC_OPS) + 4, sec(b, TIGRIS_SEC_TENSORS) - 16);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // offset beyond the file
    Bytes b = good();
    put32(b, dir_entry(b, TIGRIS_SEC_MEMORY) + 4, static_cast<uint32_t>(b.size() + 16));
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // a section starting inside the directory (on its sentinel)
    Bytes b = good();
    const uint32_t first = dir_entry(b, TIGRIS_SEC_TENSORS);
    put32(b, first + 4, first + 8);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
  {  // sentinel overwritten: the directory runs on into section bytes
    Bytes b = good();
    size_t at = dir_entry(b, TIGRIS_SEC_MEMORY) + 8;
    put32(b, at, 0xFFFFu);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  }
}

TEST(LoaderRefusals, MissingSections) {
  for (uint32_t id : {TIGRIS_SEC_TENSORS, TIGRIS_SEC_OPS, TIGRIS_SEC_STAGES, TIGRIS_SEC_INDEX_POOL,
                      TIGRIS_SEC_SHAPE_POOL, TIGRIS_SEC_STRINGS, TIGRIS_SEC_WEIGHTS, TIGRIS_SEC_MEMORY}) {
    Bytes b = good();
    drop_section(b, id);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_MISSING_SEC) << "section " << id;
  }
  {  // tile records counted but no TILE_PLANS section
    Bytes b = good();
    put16(b, 22, 1);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_MISSING_SEC);
  }
  {  // quant params counted but no QUANT_PARAMS section
    Bytes b = good();
    put16(b, 42, 1);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_MISSING_SEC);
  }
  {  // a STATE tensor without a STATE section
    PlanDesc p = conv_relu();
    p.tensors.push_back(tensor("s", {4}, TIGRIS_TENSOR_STATE));
    EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_MISSING_SEC);
  }
  {  // an If without a SUBGRAPHS section
    PlanDesc p = conv_relu();
    p.ops[1].type = TIGRIS_OP_IF;
    EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_MISSING_SEC);
  }
  {  // a v11 plan without MEMORY: written as v10, relabelled 11
    PlanDesc p = conv_relu();
    p.version = 10;
    Bytes b = write_plan(p);
    put32(b, 4, 11);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_MISSING_SEC);
  }
}

TEST(LoaderRefusals, MemorySectionBelowSchema11) {
  Bytes b = good();
  put32(b, 4, 10);  // a v10 plan (no tile records) carrying MEMORY
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = good();
  put32(c, sec(c, TIGRIS_SEC_MEMORY) + 8, 1);  // reserved words must be zero
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderRefusals, MisalignedPools) {
  Bytes b = good();
  put32(b, dir_entry(b, TIGRIS_SEC_INDEX_POOL) + 4, sec(b, TIGRIS_SEC_INDEX_POOL) + 1);
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = good();
  put32(c, dir_entry(c, TIGRIS_SEC_SHAPE_POOL) + 4, sec(c, TIGRIS_SEC_SHAPE_POOL) + 2);
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
  PlanDesc p = conv_relu();
  p.quant = {QuantDesc{}};
  p.quant[0].multipliers = {1};
  p.quant[0].shifts = {0};
  Bytes d = write_plan(p);
  ASSERT_EQ(load_err(d), TIGRIS_OK);
  put32(d, dir_entry(d, TIGRIS_SEC_QUANT_PARAMS) + 4, sec(d, TIGRIS_SEC_QUANT_PARAMS) + 2);
  EXPECT_EQ(load_err(d), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderRefusals, RecordTablesOverrunTheirSections) {
  Bytes b = good();
  put16(b, 16, 40);  // 40 tensors do not fit the TENSORS section
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = good();
  put16(c, 18, 30);  // ops
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
  Bytes d = good();
  put16(d, 40, 9);  // weight entries run into the blob and past the section
  EXPECT_NE(load_err(d), TIGRIS_OK);
}

TEST(LoaderRefusals, TileRecordFields) {
  PlanDesc p = conv_relu();
  p.version = 9;
  tigris_tile_plan_v11_t t{};
  p.tile_plans = {t};
  p.stages[1].tile_plan = 0;
  ASSERT_EQ(load_err(write_plan(p)), TIGRIS_OK);  // an untileable record
  Bytes b = write_plan(p);
  put8(b, sec(b, TIGRIS_SEC_TILE_PLANS), 2);  // tileable > 1
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = write_plan(p);
  put8(c, sec(c, TIGRIS_SEC_TILE_PLANS) + 1, TIGRIS_TILE_AXIS_HEIGHT);  // axis on an untileable record
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
  Bytes d = write_plan(p);
  put8(d, sec(d, TIGRIS_SEC_TILE_PLANS), 1);
  put8(d, sec(d, TIGRIS_SEC_TILE_PLANS) + 1, TIGRIS_TILE_AXIS_WIDTH);  // reserved axis
  EXPECT_EQ(load_err(d), TIGRIS_ERR_BAD_SECTION);
  // v11: tile_height must be the u16 view of tile_extent_wide; reserved zero.
  PlanDesc q = conv_relu();
  q.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 4, facts(4, 2, 8, 0, 1, TIGRIS_BAND_KIND_STRIPE))};
  q.stages[1].tile_plan = 0;
  ASSERT_EQ(load_err(write_plan(q)), TIGRIS_OK);
  q.tile_plans[0].choices.tile_height = 3;
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_BAD_SECTION);
  q.tile_plans[0].choices.tile_height = 4;
  q.tile_plans[0].choices.reserved = 1;
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderRefusals, AttributeAndLateSectionHeaders) {
  PlanDesc p = conv_relu();
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_CLIP_BOUNDS, std::vector<uint8_t>(8)}};
  p.ops[1].type = TIGRIS_OP_CLIP;
  Bytes b = write_plan(p);
  ASSERT_EQ(load_err(b), TIGRIS_OK);
  put16(b, sec(b, TIGRIS_SEC_OP_ATTRIBUTES), 0);  // count 0
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = write_plan(p);
  put16(c, sec(c, TIGRIS_SEC_OP_ATTRIBUTES), 500);  // entries overrun
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
  PlanDesc s = conv_relu();
  s.subgraphs = {SubgraphDesc{0, 2, {0}, {2}}};
  Bytes d = write_plan(s);
  ASSERT_EQ(load_err(d), TIGRIS_OK);
  put32(d, 4, 9);  // SUBGRAPHS below schema 10 (no MEMORY check first: drop it)
  drop_section(d, TIGRIS_SEC_MEMORY);
  EXPECT_EQ(load_err(d), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderRefusals, QuantHeader) {
  PlanDesc p = conv_relu();
  QuantDesc q;
  q.multipliers = {5};
  q.shifts = {1};
  p.quant = {q};
  Bytes ok = write_plan(p);
  ASSERT_EQ(load_err(ok), TIGRIS_OK);
  Bytes a = ok;
  put16(a, sec(a, TIGRIS_SEC_QUANT_PARAMS) + 2, 0);  // pages 0
  EXPECT_EQ(load_err(a), TIGRIS_ERR_BAD_SECTION);
  Bytes b = ok;
  put16(b, sec(b, TIGRIS_SEC_QUANT_PARAMS) + 2, 3);  // pages beyond the pool
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = ok;
  put16(c, 42, 2);  // header count disagrees with the section's
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderRefusals, StringsAndModelIo) {
  Bytes a = good();
  put32(a, 32, 0x10000);  // model name outside the strings
  EXPECT_EQ(load_err(a), TIGRIS_ERR_BAD_SECTION);
  Bytes b = good();
  put16(b, 36, 0xFFF0);  // model I/O list outside the index pool
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = good();
  put16(c, sec(c, TIGRIS_SEC_INDEX_POOL) + 2 * get16(c, 36), 77);  // model input index >= num_tensors
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
  // Strings whose last byte is not NUL: a name running off the end is refused.
  PlanDesc p = conv_relu();
  p.model_name = "m";
  Bytes d = write_plan(p);
  const uint32_t st = sec(d, TIGRIS_SEC_STRINGS), end = sec(d, TIGRIS_SEC_MEMORY);
  for (uint32_t i = st; i < end; ++i) d[i] = 'a';
  EXPECT_EQ(load_err(d), TIGRIS_ERR_BAD_SECTION);
}

}  // namespace

namespace {

TEST(LoaderRefusals, PoolsAreCheckedAtTheirAddresses) {
  // The same bytes one byte off a 16-aligned address: the index and shape pools would be
  // misaligned typed pointers, so the plan is refused.
  Bytes b = write_plan(conv_relu());
  std::vector<uint8_t> store(b.size() + 32);
  uint8_t* base = store.data() + (16 - reinterpret_cast<uintptr_t>(store.data()) % 16) % 16;
  std::memcpy(base + 1, b.data(), b.size());
  tigris_plan_t p;
  EXPECT_EQ(tigris_plan_load(base + 1, static_cast<uint32_t>(b.size()), &p), TIGRIS_ERR_BAD_SECTION);
  EXPECT_TRUE(all_zero(p));
  std::memcpy(base + 4, b.data(), b.size());  // 4-aligned is enough for the pools
  EXPECT_EQ(tigris_plan_load(base + 4, static_cast<uint32_t>(b.size()), &p), TIGRIS_OK);
}

}  // namespace
