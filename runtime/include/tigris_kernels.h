/*
 * TiGrIS runtime — float32 reference kernels.
 */
#ifndef TIGRIS_KERNELS_H
#define TIGRIS_KERNELS_H

#include "tigris_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Float32 reference dispatcher; implements tigris_kernel_fn. Needs no preparation. */
int tigris_dispatch_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                           void *user_ctx);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_H */
