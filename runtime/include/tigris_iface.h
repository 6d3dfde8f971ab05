/*
 * TiGrIS runtime — model interface: move data across the model boundary in
 * the dtype the model declares, converting to and from what the plan stores.
 */
#ifndef TIGRIS_IFACE_H
#define TIGRIS_IFACE_H

#include "tigris.h"
#include "tigris_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes the caller supplies or receives for a boundary tensor in its declared dtype;
 * 0 when the tensor is not a boundary tensor or the declared dtype has no conversion. */
uint32_t tigris_iface_bytes(const tigris_plan_t *plan, uint16_t tensor_idx);

/* Place a model input where the run reads it (see the API reference). */
tigris_error_t tigris_input_alloc(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t tensor_idx);

/* Convert src (declared dtype) into the model input tensor, placing it first if needed. */
tigris_error_t tigris_input_write(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t tensor_idx, const void *src,
                                  uint32_t src_bytes);

/* Convert a model output tensor into dst (declared dtype) after a run. */
tigris_error_t tigris_output_read(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, void *dst,
                                  uint32_t dst_bytes);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_IFACE_H */
