// The int8 1x1-convolution / fully-connected product (s8_matmul.h): blocks of four output
// channels; per row either the block's pre-widened weights (several rows) or its weight rows
// read directly (one to a few rows). Lane operations on int16 pairs held in a word (low half
// first): SXTAB16 / SMLAD through ACLE intrinsics with the DSP extension, the same operations
// in plain C without it.
#include "kernels/s8/s8_matmul.h"

#include "common/le_bytes.h"
#include "kernels/s8/s8_dot.h"
#include "kernels/s8/s8_fixed_point.h"

// The lane operations run per input word: inlined even at -Os (the Cortex-M build), where a call
// costs more than the arithmetic.
#if defined(__GNUC__)
#  define TIGRIS_MM_INLINE inline __attribute__((always_inline))
#else
#  define TIGRIS_MM_INLINE inline
#endif

namespace tigris_s8 {
namespace mm {
namespace {

#if defined(TIGRIS_S8_DSP)
// Bytes 0 and 2 of v, sign-extended, plus the int16 halves of off.
TIGRIS_MM_INLINE uint32_t lanes_add_s8(uint32_t off, uint32_t v) { return (uint32_t)__sxtab16((int16x2_t)off, (int8x4_t)v); }
TIGRIS_MM_INLINE uint32_t lanes_s8(uint32_t v) { return (uint32_t)__sxtb16((int8x4_t)v); }
// acc + lo(a) lo(b) + hi(a) hi(b), the int16 halves.
TIGRIS_MM_INLINE int32_t lanes_mla(uint32_t a, uint32_t b, int32_t acc) { return __smlad((int16x2_t)a, (int16x2_t)b, acc); }
#else
TIGRIS_MM_INLINE uint32_t lanes_add_s8(uint32_t off, uint32_t v)
{
    const uint32_t lo = (uint32_t)(int32_t)(int16_t)(off & 0xFFFFu) + (uint32_t)(int32_t)(int8_t)(v & 0xFFu);
    const uint32_t hi = (uint32_t)(int32_t)(int16_t)(off >> 16) + (uint32_t)(int32_t)(int8_t)((v >> 16) & 0xFFu);
    return (lo & 0xFFFFu) | (hi << 16);
}
TIGRIS_MM_INLINE uint32_t lanes_s8(uint32_t v) { return lanes_add_s8(0, v); }
TIGRIS_MM_INLINE int32_t lanes_mla(uint32_t a, uint32_t b, int32_t acc)
{
    const int32_t lo = (int32_t)(int16_t)(a & 0xFFFFu) * (int32_t)(int16_t)(b & 0xFFFFu);
    const int32_t hi = (int32_t)(int16_t)(a >> 16) * (int32_t)(int16_t)(b >> 16);
    return (int32_t)((uint32_t)acc + (uint32_t)lo + (uint32_t)hi);
}
#endif
// x rotated right by 8 bits: bytes 1 and 3 into lanes 0 and 2 (folded into SXTAB16/SXTB16).
TIGRIS_MM_INLINE uint32_t lanes_ror8(uint32_t x) { return (x >> 8) | (x << 24); }

struct Acc4 {
    int32_t a0, a1, a2, a3;
};

// Four channels' weights of one group of four inputs, widened: [c0 even, c0 odd, c1 even, ...].
constexpr int32_t kGroupWords = 8;

void pack_block(const int8_t *const w[4], int32_t groups, uint32_t *buf)
{
    for (int32_t g = 0; g < groups; g++, buf += kGroupWords) {
        for (int32_t j = 0; j < 4; j++) {
            const uint32_t v = load4(w[j] + 4 * g);
            buf[2 * j] = lanes_s8(v);
            buf[2 * j + 1] = lanes_s8(lanes_ror8(v));
        }
    }
}

// One group of four inputs against the packed weights of four channels.
TIGRIS_MM_INLINE void group_packed(const int8_t *x, const uint32_t *pw, uint32_t off, Acc4 *a)
{
    const uint32_t v = load4(x);
    const uint32_t xe = lanes_add_s8(off, v), xo = lanes_add_s8(off, lanes_ror8(v));
    a->a0 = lanes_mla(xo, pw[1], lanes_mla(xe, pw[0], a->a0));
    a->a1 = lanes_mla(xo, pw[3], lanes_mla(xe, pw[2], a->a1));
    a->a2 = lanes_mla(xo, pw[5], lanes_mla(xe, pw[4], a->a2));
    a->a3 = lanes_mla(xo, pw[7], lanes_mla(xe, pw[6], a->a3));
}

// One group of four inputs against four weight rows read directly.
TIGRIS_MM_INLINE int32_t mla_row(uint32_t xe, uint32_t xo, const int8_t *w, int32_t a)
{
    const uint32_t v = load4(w);
    return lanes_mla(xo, lanes_s8(lanes_ror8(v)), lanes_mla(xe, lanes_s8(v), a));
}

// The products of one row over the groups (k & ~3 inputs).
void row_packed(const int8_t *x, const uint32_t *pw, int32_t groups, uint32_t off, Acc4 *acc)
{
    Acc4 a = *acc;
    const uint32_t *end = pw + (ptrdiff_t)(groups & ~1) * kGroupWords;
    while (pw != end) {  // two groups per pass
        group_packed(x, pw, off, &a);
        group_packed(x + 4, pw + kGroupWords, off, &a);
        x += 8;
        pw += 2 * kGroupWords;
    }
    if (groups & 1) group_packed(x, pw, off, &a);
    *acc = a;
}

void row_direct(const int8_t *x, const int8_t *const w[4], int32_t groups, uint32_t off, Acc4 *acc)
{
    Acc4 a = *acc;
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    const int8_t *end = x + 4 * (ptrdiff_t)groups;
    while (x != end) {
        const uint32_t v = load4(x);
        const uint32_t xe = lanes_add_s8(off, v), xo = lanes_add_s8(off, lanes_ror8(v));
        a.a0 = mla_row(xe, xo, w0, a.a0);
        a.a1 = mla_row(xe, xo, w1, a.a1);
        a.a2 = mla_row(xe, xo, w2, a.a2);
        a.a3 = mla_row(xe, xo, w3, a.a3);
        x += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4;
    }
    *acc = a;
}

// The last k % 4 inputs, one at a time.
void row_tail(const int8_t *x, const int8_t *const w[4], int32_t from, int32_t k, int32_t in_offset, Acc4 *a)
{
    for (int32_t i = from; i < k; i++) {
        const int32_t xv = x[i] + in_offset;
        a->a0 = wrap_add(a->a0, wrap_mul(w[0][i], xv));
        a->a1 = wrap_add(a->a1, wrap_mul(w[1][i], xv));
        a->a2 = wrap_add(a->a2, wrap_mul(w[2][i], xv));
        a->a3 = wrap_add(a->a3, wrap_mul(w[3][i], xv));
    }
}

}  // namespace

int run(const Product &p)
{
    if (p.rows <= 0 || p.channels <= 0 || p.k <= 0) return 0;
    const int32_t groups = p.k / 4, lo = p.act_min, hi = p.act_max, zp = p.out_zp;
    const uint32_t off = ((uint32_t)p.in_offset & 0xFFFFu) * 0x10001u;  // |offset| <= 255: two int16 lanes
    const bool packed = packs(p.rows, p.k);
    uint32_t buf[kMaxPackedK / 4 * kGroupWords];
    for (int32_t c = 0; c < p.channels; c += 4) {
        // Past the last channel a block repeats it (computed, not stored).
        const int8_t *w[4];
        ChannelQ q[4];
        for (int32_t j = 0; j < 4; j++) {
            const int32_t cj = c + j < p.channels ? c + j : p.channels - 1;
            w[j] = p.w + (ptrdiff_t)cj * p.k;
            const int32_t fc = p.per_tensor ? 0 : cj;
            if (!channel_q(p.mult[fc], p.shift[fc], p.bias ? tigris_rt::rd_i32(p.bias + 4 * cj) : 0, &q[j])) return kGeneric;
        }
        const int32_t n = p.channels - c < 4 ? p.channels - c : 4;
        if (packed) pack_block(w, groups, buf);
        const int8_t *x = p.x;
        int8_t *y = p.y + c;
        for (int32_t r = 0; r < p.rows; r++, x += p.x_stride, y += p.y_stride) {
            Acc4 a{q[0].bias, q[1].bias, q[2].bias, q[3].bias};
            if (packed) {
                row_packed(x, buf, groups, off, &a);
            } else {
                row_direct(x, w, groups, off, &a);
            }
            if (4 * groups != p.k) row_tail(x, w, 4 * groups, p.k, p.in_offset, &a);
            int8_t tail[4];
            int8_t *dst = n == 4 ? y : tail;  // a block past the last channel: its first n bytes
            dst[0] = requant_s8(a.a0, q[0], zp, lo, hi);
            dst[1] = requant_s8(a.a1, q[1], zp, lo, hi);
            dst[2] = requant_s8(a.a2, q[2], zp, lo, hi);
            dst[3] = requant_s8(a.a3, q[3], zp, lo, hi);
            if (n != 4) memcpy(y, tail, (size_t)n);
        }
    }
    return 0;
}

}  // namespace mm
}  // namespace tigris_s8
