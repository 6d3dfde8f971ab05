/*
 * TiGrIS runtime — int8 reference kernels, bit-exact with TensorFlow Lite's
 * reference kernels. Float32 sections of an int8 plan go to the float kernels.
 */
#ifndef TIGRIS_KERNELS_S8_H
#define TIGRIS_KERNELS_S8_H

#include "tigris_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* int8 reference dispatcher; implements tigris_kernel_fn. Needs no preparation. */
int tigris_dispatch_kernel_s8(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                              void *user_ctx);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_S8_H */
