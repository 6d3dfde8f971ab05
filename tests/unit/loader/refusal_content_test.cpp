// Loader refusals, steps 14-33: limits (with out_required), tensors, ops, attributes,
// weights, quant params, blocks, stages and chains, op mix, operator contracts, float
// sections. Each test starts from a plan that loads and breaks one thing.
#include "loader_fixture.h"

using namespace lf;

namespace {

// n stages of one relu each over [1,4,4,2] tensors t0 -> t1 -> ... -> tn.
PlanDesc relu_line(uint16_t n) {
  PlanDesc p;
  p.model_name = "line";
  for (uint16_t i = 0; i <= n; ++i) {
    uint8_t f = i == 0 ? TIGRIS_TENSOR_MODEL_INPUT : (i == n ? TIGRIS_TENSOR_MODEL_OUTPUT : 0);
    p.tensors.push_back(tensor("t" + std::to_string(i), {1, 4, 4, 2}, f));
  }
  for (uint16_t i = 0; i < n; ++i) {
    p.ops.push_back(op(TIGRIS_OP_RELU, "r" + std::to_string(i), {i}, {static_cast<uint16_t>(i + 1)}));
    p.stages.push_back(stage({i}, {i}, {static_cast<uint16_t>(i + 1)}));
  }
  p.model_inputs = {0};
  p.model_outputs = {n};
  return p;
}

TEST(LoaderLimits, TensorsOverLimitReportsTensorsOnly) {
  PlanDesc p = relu_line(1);
  while (p.tensors.size() <= TIGRIS_MAX_TENSORS) p.tensors.push_back(tensor("pad", {1}));
  auto r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_PLAN_LIMITS);
  EXPECT_EQ(r.required.tensors, TIGRIS_MAX_TENSORS + 1);
  EXPECT_EQ(r.required.stage_inputs, 0);
  EXPECT_EQ(r.required.stage_outputs, 0);
  EXPECT_EQ(r.required.chain_stages, 0);
  EXPECT_EQ(r.required.spatial_ops_per_stage, 0);
}

TEST(LoaderLimits, StageInputsOverLimit) {
  PlanDesc p = relu_line(1);
  for (int i = 0; i < TIGRIS_MAX_STAGE_INPUTS; ++i) p.stages[0].inputs.push_back(0);
  auto r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_PLAN_LIMITS);
  EXPECT_EQ(r.required.tensors, 2);
  EXPECT_EQ(r.required.stage_inputs, TIGRIS_MAX_STAGE_INPUTS + 1);
  EXPECT_EQ(r.required.stage_outputs, 0);
}

TEST(LoaderLimits, StageOutputsOverLimit) {
  PlanDesc p = relu_line(1);
  for (int i = 0; i < TIGRIS_MAX_STAGE_OUTPUTS; ++i) p.stages[0].outputs.push_back(1);
  auto r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_PLAN_LIMITS);
  EXPECT_EQ(r.required.stage_inputs, 1);
  EXPECT_EQ(r.required.stage_outputs, TIGRIS_MAX_STAGE_OUTPUTS + 1);
  EXPECT_EQ(r.required.chain_stages, 0);
}

TEST(LoaderLimits, ChainLengthOverLimit) {
  const uint16_t n = TIGRIS_MAX_CHAIN_STAGES + 1;
  PlanDesc p = relu_line(n);
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = n;
  p.stages[0].chain_tile_h = 4;
  auto r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_PLAN_LIMITS);
  EXPECT_EQ(r.required.chain_stages, n);
  EXPECT_EQ(r.required.spatial_ops_per_stage, 0);
}

TEST(LoaderLimits, SpatialOpsPerChainedStageOverLimit) {
  const int n = TIGRIS_MAX_SPATIAL_OPS_PER_STAGE + 1;
  PlanDesc p;
  p.model_name = "pools";
  for (int i = 0; i <= n + 1; ++i) p.tensors.push_back(tensor("t" + std::to_string(i), {1, 8, 8, 2}));
  p.tensors.front().flags = TIGRIS_TENSOR_MODEL_INPUT;
  p.tensors.back().flags = TIGRIS_TENSOR_MODEL_OUTPUT;
  StageDesc s0 = stage({}, {0}, {static_cast<uint16_t>(n)});
  for (int i = 0; i < n; ++i) {
    OpDesc o = op(TIGRIS_OP_MAX_POOL, "p", {static_cast<uint16_t>(i)}, {static_cast<uint16_t>(i + 1)});
    o.spatial = window(3, 1, 1);
    p.ops.push_back(o);
    s0.ops.push_back(static_cast<uint16_t>(i));
  }
  p.ops.push_back(op(TIGRIS_OP_RELU, "r", {static_cast<uint16_t>(n)}, {static_cast<uint16_t>(n + 1)}));
  StageDesc s1 = stage({static_cast<uint16_t>(n)}, {static_cast<uint16_t>(n)}, {static_cast<uint16_t>(n + 1)});
  s0.chain_id = s1.chain_id = 0;
  s0.chain_len = s1.chain_len = 2;
  s0.chain_tile_h = 2;
  p.stages = {s0, s1};
  p.model_inputs = {0};
  p.model_outputs = {static_cast<uint16_t>(n + 1)};
  auto r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_PLAN_LIMITS);
  EXPECT_EQ(r.required.chain_stages, 2);
  EXPECT_EQ(r.required.spatial_ops_per_stage, n);
  // Within the limit the same chain loads and reports what it needs.
  p.stages[0].ops.pop_back();
  p.stages[1].ops.insert(p.stages[1].ops.begin(), static_cast<uint16_t>(n - 1));
  p.stages[0].outputs = {static_cast<uint16_t>(n - 1)};
  p.stages[1].inputs = {static_cast<uint16_t>(n - 1)};
  auto ok = load(write_plan(p));
  EXPECT_EQ(ok.err, TIGRIS_OK) << tigris_error_str(ok.err);
  EXPECT_EQ(ok.required.tensors, n + 2);
  EXPECT_EQ(ok.required.stage_inputs, 1);
  EXPECT_EQ(ok.required.stage_outputs, 1);
  EXPECT_EQ(ok.required.chain_stages, 2);
  EXPECT_EQ(ok.required.spatial_ops_per_stage, n - 1);
}

TEST(LoaderLimits, SubgraphCountOverLimit) {
  PlanDesc p = relu_line(1);
  p.subgraphs = {SubgraphDesc{0, 1, {0}, {1}}};
  for (int i = 0; i < TIGRIS_MAX_SUBGRAPHS; ++i) p.subgraphs.push_back(SubgraphDesc{1, 0, {}, {}});
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_PLAN_LIMITS);
}

TEST(LoaderLimits, BuildLimitsReportTheConfiguration) {
  tigris_plan_limits_t l;
  tigris_build_limits(&l);
  EXPECT_EQ(l.tensors, TIGRIS_MAX_TENSORS);
  EXPECT_EQ(l.stage_inputs, TIGRIS_MAX_STAGE_INPUTS);
  EXPECT_EQ(l.stage_outputs, TIGRIS_MAX_STAGE_OUTPUTS);
  EXPECT_EQ(l.chain_stages, TIGRIS_MAX_CHAIN_STAGES);
  EXPECT_EQ(l.spatial_ops_per_stage, TIGRIS_MAX_SPATIAL_OPS_PER_STAGE);
  tigris_build_limits(nullptr);
}

TEST(LoaderTensors, RangesAreBadSection) {
  Bytes a = write_plan(conv_relu());
  put32(a, sec(a, TIGRIS_SEC_TENSORS) + 16, 0x7FFF);  // tensor 1's name outside the strings
  EXPECT_EQ(load_err(a), TIGRIS_ERR_BAD_SECTION);
  Bytes b = write_plan(conv_relu());
  put16(b, sec(b, TIGRIS_SEC_TENSORS) + 16 + 8, 0x7FFF);  // shape outside the pool
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  PlanDesc p = conv_relu();
  p.tensors[1].quant = 0;  // no quant params at all
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderTensors, ContractsAreBadTensor) {
  auto refused = [](auto edit) {
    PlanDesc p = conv_relu();
    edit(p);
    return load_err(write_plan(p));
  };
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].flags = 0x40; }), TIGRIS_ERR_BAD_TENSOR);  // unknown flag
  // CALLER_ORDER: boundary tensors only, not with LINEAR, v7+.
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].flags = TIGRIS_TENSOR_CALLER_ORDER; }), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[0].flags |= TIGRIS_TENSOR_CALLER_ORDER | TIGRIS_TENSOR_LINEAR; }),
            TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) {
              p.version = 6;
              p.tensors[0].flags |= TIGRIS_TENSOR_CALLER_ORDER;
            }),
            TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) {
              p.tensors[0].flags |= TIGRIS_TENSOR_CALLER_ORDER;
              p.tensors[2].flags |= TIGRIS_TENSOR_CALLER_ORDER;
            }),
            TIGRIS_OK);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].shape[2] = 0; }), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].size_bytes_override = 100; }), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].dtype = 4; }), TIGRIS_ERR_BAD_TENSOR);  // no such dtype
  // int16 (16x8 quantization): a quant param's zero point within int16, its scale positive.
  auto int16_quant = [](float scale, int32_t zp) {
    return [scale, zp](PlanDesc& p) {
      p.tensors[1].dtype = TIGRIS_DTYPE_INT16;
      tigris::plan::QuantDesc q;
      q.scale = scale;
      q.zero_point = zp;
      q.multipliers = {1 << 30};
      q.shifts = {0};
      p.quant.push_back(q);
      p.tensors[1].quant = static_cast<uint16_t>(p.quant.size() - 1);
    };
  };
  EXPECT_EQ(refused(int16_quant(0.5f, 40000)), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused(int16_quant(0.0f, 0)), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].iface_dtype = TIGRIS_DTYPE_INT8; }), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[0].iface_dtype = TIGRIS_DTYPE_FLOAT32; }), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) {
              p.version = 5;
              p.tensors[0].iface_dtype = TIGRIS_DTYPE_INT8;
            }),
            TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) {
              p.version = 6;
              p.tensors[0].flags |= TIGRIS_TENSOR_LINEAR;
            }),
            TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) {  // float32 tensor with a quant param
              p.quant = {QuantDesc{0.5f, 0, {1}, {0}}};
              p.tensors[1].quant = 0;
            }),
            TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) {  // int8 zero point outside int8
              p.quant = {QuantDesc{0.5f, 200, {1}, {0}}};
              p.tensors[1].dtype = TIGRIS_DTYPE_INT8;
              p.tensors[1].quant = 0;
            }),
            TIGRIS_ERR_BAD_TENSOR);
  // Model I/O flags and the header lists must agree both ways.
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[1].flags = TIGRIS_TENSOR_MODEL_OUTPUT; }), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(refused([](PlanDesc& p) { p.tensors[0].flags = 0; }), TIGRIS_ERR_BAD_TENSOR);
}

TEST(LoaderOps, RecordsAreBadSection) {
  PlanDesc p = conv_relu();
  p.ops[1].inputs = {9};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();
  p.ops[0].bias = 5;
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  Bytes b = write_plan(conv_relu());
  put32(b, sec(b, TIGRIS_SEC_OPS), 0x7FFF);  // op name
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();  // v4: the stage byte must be a valid stage
  p.version = 4;
  p.ops[1].stage_byte = 7;
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
}

// conv_relu with the relu replaced by a transpose x(1,8,8,4) -> (1,4,8,8).
PlanDesc with_transpose() {
  PlanDesc p = conv_relu();
  p.tensors[2].shape = {1, 4, 8, 8};
  p.ops[1].type = TIGRIS_OP_TRANSPOSE;
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 3, 1, 2}}};
  return p;
}

TEST(LoaderAttributes, StructureAndTransposePerm) {
  ASSERT_EQ(load_err(write_plan(with_transpose())), TIGRIS_OK);
  PlanDesc p = with_transpose();
  p.attributes.clear();  // Transpose without its permutation
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = with_transpose();
  p.attributes[0].data = {0, 3, 1, 1};  // not a permutation
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = with_transpose();
  p.attributes[0].data = {0, 1, 3, 2};  // output shape is not the permuted input
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = with_transpose();
  p.attributes[0].data = {0, 3, 1};  // wrong length
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = with_transpose();
  p.attributes.push_back(AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 1, 2, 3}});  // perm on a conv
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = with_transpose();
  p.attributes.push_back(AttrDesc{1, TIGRIS_ATTR_KIND_COUNT, {1}});  // unknown kind
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = with_transpose();
  p.attributes.push_back(AttrDesc{5, TIGRIS_ATTR_EPSILON, {0, 0, 0, 0}});  // op index out of range
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  // Entries out of order and duplicates (the writer sorts; patch the bytes).
  p = with_transpose();
  p.attributes.push_back(AttrDesc{0, TIGRIS_ATTR_EPSILON, {0, 0, 0, 0}});
  Bytes b = write_plan(p);
  const uint32_t a = sec(b, TIGRIS_SEC_OP_ATTRIBUTES) + 4;
  put16(b, a, 1);  // first entry now (1, EPSILON) before (1, PERM): order broken
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  Bytes c = write_plan(with_transpose());
  put32(c, sec(c, TIGRIS_SEC_OP_ATTRIBUTES) + 4 + 4, 0x1000);  // payload outside the pool
  EXPECT_EQ(load_err(c), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderWeights, BlobQuantAndBlocks) {
  Bytes a = write_plan(conv_relu());
  put32(a, sec(a, TIGRIS_SEC_WEIGHTS) + 12 + 4, 0x100000);  // bias outside the blob
  EXPECT_EQ(load_err(a), TIGRIS_ERR_BAD_SECTION);
  PlanDesc q = conv_relu();
  q.quant = {QuantDesc{0.5f, 0, {}, {}}};  // zero channels
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_BAD_SECTION);
  q.quant = {QuantDesc{-1.0f, 0, {1}, {0}}};  // scale not positive
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_BAD_TENSOR);
  q.quant = {QuantDesc{0.5f, 0, {1, 2}, {0, 0}}};
  Bytes qp = write_plan(q);
  put16(qp, sec(qp, TIGRIS_SEC_QUANT_PARAMS) + 4 + 14, 1);  // page beyond the pages
  EXPECT_EQ(load_err(qp), TIGRIS_ERR_BAD_SECTION);
  Bytes qo = write_plan(q);
  put16(qo, sec(qo, TIGRIS_SEC_QUANT_PARAMS) + 4 + 12, 0xFFFF);  // shifts cross the page
  EXPECT_EQ(load_err(qo), TIGRIS_ERR_BAD_SECTION);

  PlanDesc c = conv_relu();
  c.compression = TIGRIS_COMPRESSION_LZ4;
  c.weight_blocks = {WeightBlockDesc{0, 0, 2}};
  ASSERT_EQ(load_err(write_plan(c)), TIGRIS_OK);
  Bytes b = write_plan(c);
  put16(b, sec(b, TIGRIS_SEC_WEIGHT_BLOCKS) + 2, 2);  // unknown compression
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
  c.weight_blocks[0].stage = 5;  // stage beyond the plan
  EXPECT_EQ(load_err(write_plan(c)), TIGRIS_ERR_BAD_SECTION);
  c.weight_blocks[0].stage = 1;  // the conv's weights are not in its stage's block (step 27)
  EXPECT_EQ(load_err(write_plan(c)), TIGRIS_ERR_BAD_SECTION);
  c.weight_blocks[0].stage = 0;
  c.compression = TIGRIS_COMPRESSION_NONE;
  Bytes d = write_plan(c);
  put32(d, sec(d, TIGRIS_SEC_WEIGHT_BLOCKS) + 4 + 12, 7);  // raw block sizes differ
  EXPECT_EQ(load_err(d), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderStages, ScheduleAndChains) {
  PlanDesc p = conv_relu();
  p.stages[0].ops = {1};
  p.stages[1].ops = {0};  // ops out of order
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();
  p.stages[1].ops = {};  // op 1 never scheduled
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();
  p.ops[1].stage_byte = 0;  // stage byte disagrees with the owning stage
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_OPERATOR);
  p = conv_relu();
  p.stages[1].tile_plan = 3;  // no such record
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();
  p.stages[0].chain_id = 0;  // chain id without a length
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();
  p.stages[0].chain_tile_h = 2;  // chain_tile_h on a standalone stage
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = conv_relu();
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 2;
  p.stages[0].chain_tile_h = 4;
  ASSERT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  p.stages[0].chain_tile_h = 0;  // head without chain_tile_h
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p.stages[0].chain_tile_h = 4;
  p.stages[1].chain_len = 3;  // members disagree on the length
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p.stages[1].chain_len = 2;
  p.stages[1].chain_tile_h = 1;  // chain_tile_h on a member
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderStages, ChainOpMixIsBadOperator) {
  PlanDesc p = conv_relu();
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 2;
  p.stages[0].chain_tile_h = 4;
  p.ops[1].type = TIGRIS_OP_HARDSWISH;  // not in the chain allow-list
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_OPERATOR);
}

TEST(LoaderStages, LegacyTileRecordWithoutAKind) {
  PlanDesc p = conv_relu();
  p.version = 9;
  tigris_tile_plan_v11_t t{};
  t.choices.tileable = 1;
  t.choices.axis = TIGRIS_TILE_AXIS_HEIGHT;
  t.choices.tile_height = 2;
  p.tile_plans = {t};
  p.stages[1].tile_plan = 0;
  ASSERT_EQ(load_err(write_plan(p)), TIGRIS_OK);  // relu stripe
  p.ops[1].type = TIGRIS_OP_CUMSUM;               // not bandable; ranks 4: BAD_OPERATOR
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_AXES, {3}}};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_OPERATOR);
  p = conv_relu();  // rank-1 stage I/O under a height record: BAD_SECTION
  p.version = 9;
  p.tile_plans = {t};
  p.stages[1].tile_plan = 0;
  p.tensors[1].shape = {256};
  p.tensors[2].shape = {256};
  p.ops[0].type = TIGRIS_OP_RESHAPE;
  p.ops[0].spatial = tigris_spatial_t{};
  p.ops[0].weight = p.ops[0].bias = TIGRIS_NONE;
  p.tensors[0].shape = {1, 8, 8, 4};
  p.ops[1].type = TIGRIS_OP_CUMSUM;
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_AXES, {0}}};
  p.weights.clear();
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
}

TEST(LoaderSemantics, OperatorContractIsBadOperator) {
  PlanDesc p = conv_relu();
  p.weights[0].data.resize(10);  // conv weight of the wrong size
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_OPERATOR);
  p = conv_relu();
  p.ops[1].type = 200;  // no such opcode
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_OPERATOR);
}

TEST(LoaderSemantics, Int8PlanFloatSectionNeedsAConversion) {
  // x int8 -> cast -> y float -> relu -> z float: a float section after a Cast loads.
  PlanDesc p;
  p.model_name = "q";
  p.quant = {QuantDesc{0.1f, 0, {1}, {0}}};
  p.tensors = {tensor("x", {1, 4}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8), tensor("y", {1, 4}),
               tensor("z", {1, 4}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.tensors[0].quant = 0;
  p.ops = {op(TIGRIS_OP_CAST, "dq", {0}, {1}), op(TIGRIS_OP_RELU, "r", {1}, {2})};
  p.stages = {stage({0, 1}, {0}, {2})};
  p.model_inputs = {0};
  p.model_outputs = {2};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
}

}  // namespace
