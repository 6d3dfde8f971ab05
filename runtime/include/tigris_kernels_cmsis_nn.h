/*
 * TiGrIS runtime — CMSIS-NN adapter (Cortex-M). Declared when the build
 * provides CMSIS-NN (TIGRIS_HAS_CMSIS_NN). Unsupported cases fall back to the
 * int8 reference kernels; outputs are identical bytes.
 */
#ifndef TIGRIS_KERNELS_CMSIS_NN_H
#define TIGRIS_KERNELS_CMSIS_NN_H

#include "tigris_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef TIGRIS_HAS_CMSIS_NN

/* Exact aligned adapter reservation (vendor scratch + per-channel expansion); UINT32_MAX if invalid. */
uint32_t tigris_cmsis_nn_scratch_required(const tigris_plan_t *plan);

/* Core fast-arena requirement + adapter reservation + separating alignment; UINT32_MAX if invalid. */
uint32_t tigris_cmsis_nn_fast_arena_required(const tigris_plan_t *plan);

/* Reserve the adapter workspace at the top of the fast buffer (shrinks mem->fast_size). 0 or -1. */
int tigris_cmsis_nn_prepare(const tigris_plan_t *plan, tigris_mem_t *mem);

/* Release the reservation and restore the fast-arena size. */
int tigris_cmsis_nn_deinit(tigris_mem_t *mem);

int tigris_dispatch_kernel_cmsis_nn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                    tigris_mem_t *mem, void *user_ctx);

#endif /* TIGRIS_HAS_CMSIS_NN */

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_CMSIS_NN_H */
