// libFuzzer target for tigris_plan_load: any byte string must be refused with a code (and
// an all-zero plan) or loaded into a plan whose every table and helper can be walked
// without reading outside the buffer. The same file drives the corpus replay test.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tigris_loader.h"

namespace {

volatile uint32_t g_sink;  // keeps the walks from being optimised away

void walk_plan(const tigris_plan_t& p) {
  const tigris_file_header_t* h = p.header;
  uint32_t acc = 0;
  acc += (uint32_t)strlen(tigris_model_name(&p));
  for (uint32_t i = 0; i < h->num_tensors; i++) {
    const tigris_tensor_t* t = &p.tensors[i];
    acc += (uint32_t)strlen(tigris_tensor_name(&p, t));
    for (uint32_t d = 0; d < t->ndim; d++) acc += (uint32_t)tigris_tensor_shape(&p, t)[d];
    const tigris_quant_param_t* q = tigris_tensor_quant(&p, t);
    if (q)
      acc += (uint32_t)tigris_quant_multipliers(&p, q)[q->num_channels - 1] + (uint32_t)tigris_quant_shifts(&p, q)[0];
  }
  for (uint32_t i = 0; i < h->num_ops; i++) {
    const tigris_op_t* op = &p.ops[i];
    acc += (uint32_t)strlen(tigris_op_name(&p, op));
    for (uint32_t k = 0; k < op->num_inputs; k++) acc += tigris_op_inputs(&p, op)[k];
    for (uint32_t k = 0; k < op->num_outputs; k++) acc += tigris_op_outputs(&p, op)[k];
    const uint8_t* w = (const uint8_t*)tigris_op_weight(&p, op);
    const uint32_t wsize = w ? p.weight_entries[op->weight_idx].size_bytes : 0;
    if (wsize) acc += w[wsize - 1];
    for (uint8_t kind = 1; kind < TIGRIS_ATTR_KIND_COUNT; kind++) {
      uint8_t len = 0;
      const uint8_t* a = tigris_op_attribute_data(&p, (uint16_t)i, kind, &len);
      if (a && len) acc += a[len - 1];
    }
  }
  for (uint32_t s = 0; s < h->num_stages; s++) {
    const tigris_stage_t* st = &p.stages[s];
    for (uint32_t k = 0; k < st->ops_count; k++) acc += tigris_stage_ops(&p, st)[k];
    for (uint32_t k = 0; k < st->inputs_count; k++) acc += tigris_stage_inputs(&p, st)[k];
    for (uint32_t k = 0; k < st->outputs_count; k++) acc += tigris_stage_outputs(&p, st)[k];
    tigris_tile_facts_t f;
    tigris_stage_band_t b;
    acc += (uint32_t)tigris_stage_tile_facts(&p, st, &f) + f.num_tiles;
    acc += (uint32_t)tigris_stage_band_kind(&p, st, &b) + b.extent;
    acc += tigris_stage_tiles(&p, st).tile_extent_wide;
  }
  for (uint32_t i = 0; i < h->num_weights; i++) acc += (uint32_t)strlen(tigris_weight_name(&p, &p.weight_entries[i]));
  for (uint32_t i = 0; i < p.num_weight_blocks; i++) {
    const tigris_weight_block_t* b = &p.weight_blocks[i];
    acc += p.weight_blocks_data[b->blob_offset + b->compressed_size - 1];
  }
  for (uint32_t i = 0; i < p.num_state; i++) {
    const tigris_state_entry_t* e = &p.state_entries[i];
    if (e->bytes) acc += p.state_section[e->initial + e->bytes - 1];
  }
  for (uint32_t i = 0; i < h->num_model_inputs; i++) acc += p.model_inputs[i];
  for (uint32_t i = 0; i < h->num_model_outputs; i++) acc += p.model_outputs[i];
  acc += tigris_weight_decompression_overhead(&p) + tigris_fast_arena_required(&p);
  g_sink = acc;
}

bool all_zero(const tigris_plan_t& p) {
  const uint8_t* b = (const uint8_t*)&p;
  for (size_t i = 0; i < sizeof(p); i++) {
    if (b[i]) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 0xFFFFFFFFu) return 0;
  // An exactly sized, 16-aligned copy: ASan catches any read past the plan.
  uint8_t* buf = (uint8_t*)aligned_alloc(16, size ? (size + 15) / 16 * 16 : 16);
  if (!buf) return 0;
  if (size) memcpy(buf, data, size);
  tigris_plan_t plan;
  tigris_plan_limits_t req;
  const tigris_error_t err = tigris_plan_load_ex(buf, (uint32_t)size, &plan, &req);
  if (err == TIGRIS_OK) {
    walk_plan(plan);
  } else if (!all_zero(plan)) {
    abort();  // a refused plan must expose nothing
  }
  free(buf);
  return 0;
}
