// LZ4 block decoder, written from the block format description (see lz4_block.h).
#include "lz4/lz4_block.h"

#include <string.h>

namespace tigris_rt {

namespace {

struct Reader {
    const uint8_t *p;
    const uint8_t *end;
    uint32_t left() const { return (uint32_t)(end - p); }
};

// Extend a nibble of 15 with continuation bytes: each is added; a byte below 255 ends it.
Lz4Status read_length(Reader *in, uint32_t *len)
{
    if (*len != 15u) return LZ4_OK;
    for (;;) {
        if (in->p == in->end) return LZ4_ERR_TRUNCATED;
        uint8_t b = *in->p++;
        if (*len > UINT32_MAX - b) return LZ4_ERR_LENGTH;
        *len += b;
        if (b != 255u) return LZ4_OK;
    }
}

}  // namespace

Lz4Status lz4_decode_block(const uint8_t *src, uint32_t src_len, uint8_t *dst, uint32_t dst_cap, uint32_t *out_len)
{
    if (src == nullptr || out_len == nullptr || src_len == 0 || (dst == nullptr && dst_cap != 0)) return LZ4_ERR_ARGS;
    Reader in{src, src + src_len};
    uint32_t out = 0;
    for (;;) {
        const uint8_t token = *in.p++;
        uint32_t literals = token >> 4;
        Lz4Status st = read_length(&in, &literals);
        if (st != LZ4_OK) return st;
        if (literals > in.left()) return LZ4_ERR_TRUNCATED;
        if (literals > dst_cap - out) return LZ4_ERR_OUTPUT;
        if (literals != 0) memcpy(dst + out, in.p, literals);
        in.p += literals;
        out += literals;
        if (in.p == in.end) break;  // the last sequence carries literals only

        if (in.left() < 2) return LZ4_ERR_TRUNCATED;
        const uint32_t offset = (uint32_t)in.p[0] | ((uint32_t)in.p[1] << 8);
        in.p += 2;
        if (offset == 0 || offset > out) return LZ4_ERR_OFFSET;
        uint32_t match = token & 0x0Fu;
        st = read_length(&in, &match);
        if (st != LZ4_OK) return st;
        if (match > UINT32_MAX - 4u) return LZ4_ERR_LENGTH;
        match += 4;
        if (match > dst_cap - out) return LZ4_ERR_OUTPUT;
        // Byte by byte: the match may overlap the bytes it produces.
        const uint8_t *from = dst + out - offset;
        for (uint32_t i = 0; i < match; ++i) dst[out + i] = from[i];
        out += match;
        if (in.p == in.end) return LZ4_ERR_TRUNCATED;  // a block never ends on a match
    }
    *out_len = out;
    return LZ4_OK;
}

}  // namespace tigris_rt
