// The platform allocator behind the ESP-NN adapter's workspace (the one place of the runtime
// that allocates, as the API contract allows for this adapter). Weak defaults: on ESP-IDF
// heap_caps_aligned_alloc(MALLOC_CAP_8BIT) / heap_caps_free, elsewhere aligned_alloc / free.
// An application (or a test) replaces both by defining them.
#pragma once

#include <stdint.h>

extern "C" {
// `size` bytes aligned to `alignment` (a power of two), or NULL.
void *tigris_esp_nn_platform_alloc(uint32_t alignment, uint32_t size);
void tigris_esp_nn_platform_free(void *ptr);
}
