// Bounds-checked decoder of the LZ4 *block* format (no frame header, no checksums).
//
// A block is a series of sequences. Each starts with a token byte: its high nibble is
// the literal count, its low nibble the match length minus 4; a nibble of 15 continues in
// the following bytes, each added, until a byte below 255. The literals follow, then a
// two-byte little-endian offset (1..bytes already decoded) and the match, copied byte by
// byte from that far back (so it may overlap itself). The last sequence has literals only
// and ends the block.
#pragma once

#include <stdint.h>

namespace tigris_rt {

enum Lz4Status : int32_t {
    LZ4_OK = 0,
    LZ4_ERR_ARGS = -1,       // NULL buffers, or an empty source
    LZ4_ERR_TRUNCATED = -2,  // the source ends inside a sequence
    LZ4_ERR_OUTPUT = -3,     // the block decodes to more than dst_cap bytes
    LZ4_ERR_OFFSET = -4,     // a match offset of 0 or reaching before the output
    LZ4_ERR_LENGTH = -5      // a length that overflows 32 bits
};

// Decode src[0, src_len) into dst[0, dst_cap). On LZ4_OK *out_len holds the decoded length.
// Never reads or writes outside the given ranges, whatever the input bytes.
Lz4Status lz4_decode_block(const uint8_t *src, uint32_t src_len, uint8_t *dst, uint32_t dst_cap, uint32_t *out_len);

}  // namespace tigris_rt
