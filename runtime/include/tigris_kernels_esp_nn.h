/*
 * TiGrIS runtime — ESP-NN adapter (ESP32-S3). Declared when the build
 * provides ESP-NN (TIGRIS_HAS_ESP_NN). Unsupported cases fall back to the
 * int8 reference kernels; outputs are identical bytes.
 */
#ifndef TIGRIS_KERNELS_ESP_NN_H
#define TIGRIS_KERNELS_ESP_NN_H

#include "tigris_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef TIGRIS_HAS_ESP_NN

/* Scan the plan and obtain 16-byte-aligned backend workspace from the platform allocator.
 * 0 ok, -1 invalid/overflowing metadata or missing mandatory buffer, -2 misaligned weights. */
int tigris_esp_nn_prepare(const tigris_plan_t *plan, tigris_mem_t *mem);

void tigris_esp_nn_deinit(void);

int tigris_dispatch_kernel_esp_nn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                  tigris_mem_t *mem, void *user_ctx);

#endif /* TIGRIS_HAS_ESP_NN */

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_ESP_NN_H */
