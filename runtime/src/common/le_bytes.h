// Little-endian reads at any alignment: plan records, index pools and attribute payloads are
// little-endian and often unaligned (packed records, byte payloads). The one definition every
// runtime part uses; compilers turn each into a single load on little-endian targets.
#pragma once

#include <stdint.h>
#include <string.h>

namespace tigris_rt {

inline uint16_t rd_u16(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint16_t)(b[0] | (b[1] << 8));
}

inline uint32_t rd_u32(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

inline int32_t rd_i32(const void *p) { return (int32_t)rd_u32(p); }

inline float rd_f32(const void *p)
{
    const uint32_t bits = rd_u32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

}  // namespace tigris_rt
