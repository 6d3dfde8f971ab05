// Weak default platform allocator of the ESP-NN adapter (esp_nn_alloc.h).
#include "backends/esp_nn/esp_nn_alloc.h"

#include <stdlib.h>

#if defined(ESP_PLATFORM)
#  include "esp_heap_caps.h"
#endif

extern "C" __attribute__((weak)) void *tigris_esp_nn_platform_alloc(uint32_t alignment, uint32_t size)
{
    if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
#if defined(ESP_PLATFORM)
    return heap_caps_aligned_alloc(alignment, size, MALLOC_CAP_8BIT);
#else
    const size_t rounded = ((size_t)size + alignment - 1u) / alignment * alignment;  // C11 wants a multiple
    return aligned_alloc(alignment, rounded);
#endif
}

extern "C" __attribute__((weak)) void tigris_esp_nn_platform_free(void *ptr)
{
#if defined(ESP_PLATFORM)
    heap_caps_free(ptr);
#else
    free(ptr);
#endif
}
