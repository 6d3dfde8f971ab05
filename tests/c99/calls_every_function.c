/*
 * A C99 "firmware" that uses the runtime as C code would: it includes every public
 * header, assembles a small schema-11 plan with the records of tigris.h (ReLU over
 * four floats), runs it through every executor entry point, and calls every other
 * function of the API. Built with plain cc against libtigris_runtime.a: proves the
 * headers are C99 and the archive needs no C++ runtime.
 */
#include <stdio.h>
#include <string.h>

#include "tigris.h"
#include "tigris_config.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_esp_nn.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"
#include "tigris_mem.h"
#include "tigris_trace.h"

#define CHECK(cond)                                    \
  do {                                                 \
    if (!(cond)) {                                     \
      printf("FAILED line %d: %s\n", __LINE__, #cond); \
      return 1;                                        \
    }                                                  \
  } while (0)

static union {
  uint8_t bytes[512];
  uint64_t align;
} plan_buf;

static void put(uint32_t off, const void* src, size_t n) { memcpy(plan_buf.bytes + off, src, n); }

/* Layout: header 0, directory 48 (8 entries), tensors 112, ops 144, stages 192,
 * index pool 224, shape pool 240, strings 256, memory 272, end 288. */
static uint32_t build_relu_plan(void) {
  static const char strings[] = "\0relu4\0x\0y\0relu";
  const uint16_t index_pool[7] = {0, 1, 0, 0, 1, 0, 1};
  const int32_t shape[2] = {1, 4};
  const uint32_t dir[][2] = {{TIGRIS_SEC_TENSORS, 112},    {TIGRIS_SEC_OPS, 144},        {TIGRIS_SEC_STAGES, 192},
                             {TIGRIS_SEC_INDEX_POOL, 224}, {TIGRIS_SEC_SHAPE_POOL, 240}, {TIGRIS_SEC_STRINGS, 256},
                             {TIGRIS_SEC_MEMORY, 272},     {TIGRIS_SEC_END, 0}};
  tigris_file_header_t h;
  tigris_tensor_t t[2];
  tigris_op_t op;
  tigris_stage_t st;
  tigris_memory_section_t m;
  unsigned i;

  memset(plan_buf.bytes, 0, sizeof plan_buf.bytes);
  memset(&h, 0, sizeof h);
  h.magic = TIGRIS_MAGIC;
  h.version = TIGRIS_SCHEMA_VERSION;
  h.file_size = 288;
  h.section_dir_off = 48;
  h.num_tensors = 2;
  h.num_ops = 1;
  h.num_stages = 1;
  h.budget = 1024;
  h.peak = 32;
  h.model_name_str = 1;
  h.model_io_off = 5;
  h.num_model_inputs = 1;
  h.num_model_outputs = 1;
  put(0, &h, sizeof h);
  for (i = 0; i < 8; ++i) {
    tigris_section_entry_t e;
    e.type = dir[i][0];
    e.offset = dir[i][1];
    put(48 + 8 * i, &e, sizeof e);
  }
  memset(t, 0, sizeof t);
  for (i = 0; i < 2; ++i) {
    t[i].name_str = i == 0 ? 7 : 9;
    t[i].size_bytes = 16;
    t[i].shape_off = 0;
    t[i].ndim = 2;
    t[i].dtype = TIGRIS_DTYPE_FLOAT32;
    t[i].flags = i == 0 ? TIGRIS_TENSOR_MODEL_INPUT : TIGRIS_TENSOR_MODEL_OUTPUT;
    t[i].quant_param_idx = TIGRIS_NONE;
  }
  put(112, t, sizeof t);
  memset(&op, 0, sizeof op);
  op.name_str = 11;
  op.op_type = TIGRIS_OP_RELU;
  op.num_inputs = 1;
  op.num_outputs = 1;
  op.inputs_off = 0;
  op.outputs_off = 1;
  op.weight_idx = TIGRIS_NONE;
  op.bias_idx = TIGRIS_NONE;
  op.act_min = -128;
  op.act_max = 127;
  put(144, &op, sizeof op);
  memset(&st, 0, sizeof st);
  st.peak_bytes = 64;
  st.ops_off = 2;
  st.ops_count = 1;
  st.inputs_off = 3;
  st.inputs_count = 1;
  st.outputs_off = 4;
  st.outputs_count = 1;
  st.tile_plan_idx = TIGRIS_NONE;
  st.chain_id = TIGRIS_NONE;
  put(192, &st, sizeof st);
  put(224, index_pool, sizeof index_pool);
  put(240, shape, sizeof shape);
  put(256, strings, sizeof strings);
  memset(&m, 0, sizeof m);
  m.scheduled_peak = 64;
  put(272, &m, sizeof m);
  return 288;
}

static unsigned trace_events;
static void count_event(const tigris_trace_event_t* event, void* ctx) {
  (void)event;
  (void)ctx;
  ++trace_events;
}

static int run_once(const tigris_plan_t* plan, int entry) {
  static uint8_t fast[1024], slow[1024], workspace[65536];
  static tigris_executor_workspace_t ws;
  void* ptrs[2];
  tigris_mem_t mem;
  tigris_exec_stats_t stats;
  const float in[4] = {-1.5f, 0.0f, 2.25f, -0.0f};
  float out[4];
  size_t need = tigris_executor_workspace_required(plan);
  tigris_exec_error_t rc = TIGRIS_EXEC_OK;

  CHECK(need > 0 && need <= sizeof workspace);
  CHECK(tigris_mem_init(&mem, ptrs, 2, fast, sizeof fast, slow, sizeof slow) == TIGRIS_MEM_OK);
  tigris_mem_set_trace(&mem, count_event, NULL);
  CHECK(tigris_iface_bytes(plan, 0) == 16 && tigris_iface_bytes(plan, 1) == 16);
  CHECK(tigris_input_alloc(plan, &mem, 0) == TIGRIS_OK);
  CHECK(tigris_mem_tensor_ptr(&mem, 0) != NULL);
  CHECK(tigris_input_write(plan, &mem, 0, in, sizeof in) == TIGRIS_OK);
  switch (entry) {
  case 0: rc = tigris_run(plan, &mem, tigris_dispatch_kernel, NULL, &stats); break;
  case 1: rc = tigris_run_with_workspace(plan, &mem, tigris_dispatch_kernel, NULL, &stats, &ws); break;
  case 2:
    rc = tigris_run_with_workspace_buffer(plan, &mem, tigris_dispatch_kernel, NULL, &stats, workspace, need);
    break;
  case 3: rc = tigris_run_with_state(plan, &mem, tigris_dispatch_kernel, NULL, &stats, workspace, need, NULL, 0); break;
  default:
    rc = tigris_run_with_workspace_buffer(plan, &mem, tigris_dispatch_kernel_s8, NULL, &stats, workspace, need);
    break;
  }
  CHECK(rc == TIGRIS_EXEC_OK);
  CHECK(stats.stages_normal == 1);
  CHECK(mem.fast_peak > 0);
  CHECK(tigris_output_read(plan, &mem, 1, out, sizeof out) == TIGRIS_OK);
  CHECK(out[0] == 0.0f && out[1] == 0.0f && out[2] == 2.25f && out[3] == 0.0f);
  return 0;
}

int main(void) {
  uint32_t len = build_relu_plan();
  tigris_plan_t plan;
  tigris_plan_limits_t need, have;
  tigris_tile_facts_t facts;
  tigris_stage_band_t band;
  tigris_tile_plan_v10_t tiles;
  uint8_t alen = 0;
  int entry;
  static uint8_t fast[256];
  void* ptrs[2];
  tigris_mem_t mem;

  /* Loader and its helpers. */
  CHECK(tigris_plan_load(NULL, len, &plan) == TIGRIS_ERR_NULL);
  CHECK(tigris_plan_load(plan_buf.bytes, 40, &plan) == TIGRIS_ERR_TOO_SMALL);
  CHECK(tigris_plan_load_ex(plan_buf.bytes, len, &plan, &need) == TIGRIS_OK);
  tigris_build_limits(&have);
  CHECK(need.tensors == 2 && have.tensors == TIGRIS_MAX_TENSORS);
  CHECK(tigris_plan_load(plan_buf.bytes, len, &plan) == TIGRIS_OK);
  CHECK(plan.scheduled_peak == 64 && plan.tile_plans_v11 == NULL);
  CHECK(strcmp(tigris_model_name(&plan), "relu4") == 0);
  CHECK(strcmp(tigris_tensor_name(&plan, &plan.tensors[1]), "y") == 0);
  CHECK(tigris_tensor_shape(&plan, &plan.tensors[0])[1] == 4);
  CHECK(strcmp(tigris_op_name(&plan, &plan.ops[0]), "relu") == 0);
  CHECK(tigris_op_inputs(&plan, &plan.ops[0])[0] == 0 && tigris_op_outputs(&plan, &plan.ops[0])[0] == 1);
  CHECK(tigris_stage_ops(&plan, &plan.stages[0])[0] == 0);
  CHECK(tigris_stage_inputs(&plan, &plan.stages[0])[0] == 0);
  CHECK(tigris_stage_outputs(&plan, &plan.stages[0])[0] == 1);
  CHECK(tigris_op_weight(&plan, &plan.ops[0]) == NULL && tigris_op_bias(&plan, &plan.ops[0]) == NULL);
  CHECK(tigris_tensor_quant(&plan, &plan.tensors[0]) == NULL);
  CHECK(tigris_tensor_declared_dtype(&plan.tensors[0]) == TIGRIS_DTYPE_FLOAT32);
  CHECK(tigris_op_attribute_data(&plan, 0, TIGRIS_ATTR_ALPHA, &alen) == NULL && alen == 0);
  CHECK(tigris_stage_tile_plan(&plan, &plan.stages[0]) == NULL);
  tiles = tigris_stage_tiles(&plan, &plan.stages[0]);
  CHECK(tiles.tileable == 0 && tiles.num_tiles == 0);
  (void)tigris_stage_tile_facts(&plan, &plan.stages[0], &facts);
  CHECK(tigris_stage_band_kind(&plan, &plan.stages[0], &band) == TIGRIS_BAND_KIND_NONE);
  CHECK(tigris_weight_decompression_overhead(&plan) == 0);
  CHECK(tigris_fast_arena_required(&plan) == 64);
  CHECK(tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_FLOAT32);
  CHECK(tigris_state_required(&plan) == 0);
  CHECK(tigris_state_init(&plan, NULL, 0) == TIGRIS_EXEC_ERR_STATE);
  CHECK(tigris_executor_workspace_size() == sizeof(tigris_executor_workspace_t));
  CHECK(tigris_weight_data(&plan, &(tigris_weight_entry_t){0, 0, 0}) == NULL);
  CHECK(tigris_weight_name(&plan, &(tigris_weight_entry_t){0, 0, 0})[0] == '\0');
  {
    tigris_quant_param_t qp;
    memset(&qp, 0, sizeof qp);
    qp.page = 1;
    CHECK(tigris_quant_page_start(&qp) == 65536u);
    (void)tigris_quant_multipliers;
    (void)tigris_quant_shifts;
  }

  /* Strings of every error family. */
  CHECK(strlen(tigris_error_str(TIGRIS_ERR_TILE_BAND)) > 0);
  CHECK(strlen(tigris_error_str(TIGRIS_ERR_FEATURE_DISABLED)) > 0);
  CHECK(strlen(tigris_mem_error_str(TIGRIS_MEM_ERR_NOT_SET)) > 0);
  CHECK(strlen(tigris_exec_error_str(TIGRIS_EXEC_ERR_STATE)) > 0);

  /* Memory manager: slow allocation with no slow buffer. */
  CHECK(tigris_mem_init(&mem, ptrs, 2, fast, sizeof fast, NULL, 0) == TIGRIS_MEM_OK);
  CHECK(tigris_mem_alloc_slow(&mem, 0, 16) == TIGRIS_MEM_ERR_OOM);
  CHECK(tigris_mem_tensor_ptr(&mem, 5) == NULL);

  /* Every executor entry point runs the plan. */
  for (entry = 0; entry < 5; ++entry) {
    if (run_once(&plan, entry) != 0) {
      printf("entry point %d failed\n", entry);
      return 1;
    }
  }
#ifdef TIGRIS_TRACE
  CHECK(trace_events > 0);
#endif
  printf("C99 API program: loaded, ran 5 entry points, called every function\n");
  return 0;
}
