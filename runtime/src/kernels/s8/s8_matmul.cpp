// The int8 1x1-convolution / fully-connected product (s8_matmul.h): blocks of four output
// channels; per row either the block's pre-widened weights (several rows), the call's
// pre-widened inputs against masked weight words (one to eight rows, few_rows) or the weight
// rows read directly (longer few-row calls). Lane operations on int16 pairs held in a word (low half
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

// An int32 bias at any alignment, little-endian (one load where the target is little-endian).
TIGRIS_MM_INLINE int32_t bias_at(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    int32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return tigris_rt::rd_i32(p);
#endif
}

// The few-row path (s8_matmul.h, kFewMaxInputs): the rows' groups widened once, offset added,
// one doubleword per group (the even pair in its low word, the odd pair in its high word, one
// LDRD to read), row after row.
void widen_rows(const Product &p, int32_t groups, uint32_t off, uint64_t *xw)
{
    const int8_t *x = p.x;
    for (int32_t r = 0; r < p.rows; r++, x += p.x_stride) {
        for (int32_t g = 0; g < groups; g++, xw++) {
            const uint32_t v = load4(x + 4 * g);
            *xw = lanes_add_s8(off, v) | (uint64_t)lanes_add_s8(off, lanes_ror8(v)) << 32;
        }
    }
}

// One group of a weight row against the widened inputs: 256 times its products (the bytes
// masked in place, no sign extension).
// The mask is a register (an argument, not a constant) so that the compiler folds the shift into
// the AND's operand: two instructions per word, not three.
TIGRIS_MM_INLINE int32_t mla_row_x256(uint32_t xe, uint32_t xo, const int8_t *w, uint32_t mask, int32_t a)
{
    const uint32_t v = load4(w);
    return lanes_mla(xo, v & mask, lanes_mla(xe, (v << 8) & mask, a));
}

// One group of four weight rows (at w, w + k, w2, w2 + k) against one widened group.
TIGRIS_MM_INLINE void group_few(const uint64_t *xw, const int8_t *w, const int8_t *w2, int32_t k, uint32_t mask,
                                int32_t &a0, int32_t &a1, int32_t &a2, int32_t &a3)
{
    const uint64_t pair = *xw;
    const uint32_t xe = (uint32_t)pair, xo = (uint32_t)(pair >> 32);
    a0 = mla_row_x256(xe, xo, w, mask, a0);
    a1 = mla_row_x256(xe, xo, w + k, mask, a1);
    a2 = mla_row_x256(xe, xo, w2, mask, a2);
    a3 = mla_row_x256(xe, xo, w2 + k, mask, a3);
}

// The products of one widened row (pairs of groups, at least one) with four weight rows K apart
// (the first at w), added to acc: 256 times the products summed per chunk of kFewChunk inputs,
// each chunk's sum divided by 256 exactly. K, a fixed row length (K <= 1365), makes the rows'
// offsets immediates (rows of any other length: rows2_few). Out of line with the mask an argument
// (noipa: not propagated), so that the shift folds into the AND: inlined with the constant, GCC
// spends three instructions per weight word and spills.
template <int32_t K>
#if defined(__GNUC__)
__attribute__((noipa))
#endif
void row_few(const uint64_t *xw, const int8_t *w, int32_t k, uint32_t mask, int32_t acc[4])
{
    (void)k;
    constexpr int32_t kChunkPairs = kFewChunk / 8;
    // Four groups per pass where the rows' length allows (chunks are whole multiples of them).
    constexpr bool kQuads = K % 16 == 0;
    int32_t pairs = K / 8;
    do {
        const int32_t n = pairs < kChunkPairs ? pairs : kChunkPairs;
        pairs -= n;
        const uint64_t *end = xw + 2 * (ptrdiff_t)n;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        do {
            group_few(xw, w, w + 2 * K, K, mask, a0, a1, a2, a3);
            group_few(xw + 1, w + 4, w + 2 * K + 4, K, mask, a0, a1, a2, a3);
            if (kQuads) {
                group_few(xw + 2, w + 8, w + 2 * K + 8, K, mask, a0, a1, a2, a3);
                group_few(xw + 3, w + 12, w + 2 * K + 12, K, mask, a0, a1, a2, a3);
                xw += 2, w += 8;
            }
            xw += 2, w += 8;
        } while (xw != end);
        acc[0] = wrap_add(acc[0], a0 >> 8);
        acc[1] = wrap_add(acc[1], a1 >> 8);
        acc[2] = wrap_add(acc[2], a2 >> 8);
        acc[3] = wrap_add(acc[3], a3 >> 8);
    } while (pairs > 0);
}

// One widened group against two weight rows (at w, w + k).
TIGRIS_MM_INLINE void group2_few(const uint64_t *xw, const int8_t *w, int32_t k, uint32_t mask, int32_t &a0, int32_t &a1)
{
    const uint32_t xe = (uint32_t)*xw, xo = (uint32_t)(*xw >> 32);
    a0 = mla_row_x256(xe, xo, w, mask, a0);
    a1 = mla_row_x256(xe, xo, w + k, mask, a1);
}

// row_few's products for two weight rows k apart, k any length (kQuads: a multiple of 16, four
// groups per pass). With the offset k in a register, four rows at once would need one register
// more than the Cortex-M has: GCC spilled three values in that loop, 1.9 instructions per MAC
// against 1.5 for two passes of two rows on the Cortex-M4.
template <bool kQuads>
#if defined(__GNUC__)
__attribute__((noipa))
#endif
void rows2_few(const uint64_t *xw, const int8_t *w, int32_t k, uint32_t mask, int32_t acc[2])
{
    constexpr int32_t kChunkPairs = kFewChunk / 8;
    int32_t pairs = k / 8;
    do {
        const int32_t n = pairs < kChunkPairs ? pairs : kChunkPairs;
        pairs -= n;
        const uint64_t *end = xw + 2 * (ptrdiff_t)n;
        int32_t a0 = 0, a1 = 0;
        do {
            group2_few(xw, w, k, mask, a0, a1);
            group2_few(xw + 1, w + 4, k, mask, a0, a1);
            if (kQuads) {
                group2_few(xw + 2, w + 8, k, mask, a0, a1);
                group2_few(xw + 3, w + 12, k, mask, a0, a1);
                xw += 2, w += 8;
            }
            xw += 2, w += 8;
        } while (xw != end);
        acc[0] = wrap_add(acc[0], a0 >> 8);
        acc[1] = wrap_add(acc[1], a1 >> 8);
    } while (pairs > 0);
}

template <>
void row_few<0>(const uint64_t *xw, const int8_t *w, int32_t k, uint32_t mask, int32_t acc[4])
{
    const auto rows2 = k % 16 == 0 ? rows2_few<true> : rows2_few<false>;
    rows2(xw, w, k, mask, acc);
    rows2(xw, w + 2 * (ptrdiff_t)k, k, mask, acc + 2);
}

using RowFn = void (*)(const uint64_t *, const int8_t *, int32_t, uint32_t, int32_t *);

// The loop for rows of k inputs: fixed-length ones for the power-of-two widths common in 1x1
// convolutions and fully connected layers (about 380 bytes of code each; 1.4 instructions per
// MAC), two passes of two rows otherwise.
RowFn row_for(int32_t k)
{
    switch (k) {
    case 8: return row_few<8>;
    case 16: return row_few<16>;
    case 32: return row_few<32>;
    case 64: return row_few<64>;
    case 128: return row_few<128>;
    case 256: return row_few<256>;
    default: return row_few<0>;
    }
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

// row_tail for run_few's four rows k apart (out of line: inlined, the rows' pointers were
// computed for every block).
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void few_tail(const int8_t *x, const int8_t *w, int32_t k, int32_t from, int32_t in_offset, int32_t a[4])
{
    const int8_t *wr[4] = {w, w + k, w + 2 * (ptrdiff_t)k, w + 3 * (ptrdiff_t)k};
    Acc4 t{a[0], a[1], a[2], a[3]};
    row_tail(x, wr, from, k, in_offset, &t);
    a[0] = t.a0, a[1] = t.a1, a[2] = t.a2, a[3] = t.a3;
}

// The few-row path (few_rows, at least four channels): the inputs widened once; each block of
// four channels k apart (the last block moved back to end at the last channel, its first
// outputs already written and not stored again). Per-tensor factors are prepared once for every
// block; per-channel ones (kPerChannel) are read as they are where requant_raw_ok admits all four
// of a block (each is used for one to three outputs here, fewer than preparing them pays for),
// prepared for the block otherwise. Two instances, so that the per-tensor loop carries none of it.
template <bool kPerChannel>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
int run_few(const Product &p)
{
    // Pairs of groups of four inputs in the chunks, the last k % 8 inputs one at a time.
    const int32_t groups = p.k / 4, pairs = p.k / 8, k = p.k;
    const uint32_t off = ((uint32_t)p.in_offset & 0xFFFFu) * 0x10001u;
    uint64_t xw[kFewMaxInputs / 4];
    widen_rows(p, groups, off, xw);
    const RowFn row = row_for(k);
    ChannelQ q[4];
    Out4 o{};
    const Out4 o_raw = out4(p.out_zp, p.act_min, p.act_max);
    if (!kPerChannel) {
        if (!channel_q(p.mult[0], p.shift[0], 0, &q[0])) return kGeneric;
        q[1] = q[2] = q[3] = q[0];
        o = out4(q, p.out_zp, p.act_min, p.act_max);
    }
    for (int32_t c = 0; c < p.channels; c += 4) {
        const int32_t c0 = c + 4 <= p.channels ? c : p.channels - 4, skip = c - c0;
        const int8_t *w = p.w + (ptrdiff_t)c0 * k;
        const int32_t *m = p.mult + c0, *sh = p.shift + c0;
        bool raw = false;
        if (kPerChannel) {
            raw = requant_raw_ok(m[0], sh[0]) && requant_raw_ok(m[1], sh[1]) && requant_raw_ok(m[2], sh[2]) &&
                  requant_raw_ok(m[3], sh[3]);
            if (!raw) {
                for (int32_t j = 0; j < 4; j++)
                    if (!channel_q(m[j], sh[j], 0, &q[j])) return kGeneric;
                o = out4(q, p.out_zp, p.act_min, p.act_max);
            }
        }
        const uint8_t *b = p.bias ? p.bias + 4 * (ptrdiff_t)c0 : nullptr;
        const int8_t *x = p.x;
        int8_t *y = p.y + c;
        for (int32_t r = 0; r < p.rows; r++, x += p.x_stride, y += p.y_stride) {
            int32_t a[4];
            if (b) {
                a[0] = bias_at(b), a[1] = bias_at(b + 4), a[2] = bias_at(b + 8), a[3] = bias_at(b + 12);
            } else {
                a[0] = a[1] = a[2] = a[3] = 0;
            }
            row(xw + (ptrdiff_t)r * groups, w, k, 0xFF00FF00u, a);
            if (8 * pairs != k) few_tail(x, w, k, 8 * pairs, p.in_offset, a);
            int8_t out[4];
            int8_t *dst = skip == 0 ? y : out;
            if (raw) {
                requant4_raw_s8(a, m, sh, o_raw, dst);
            } else {
                requant4_s8(a, q, o, dst);
            }
            if (skip != 0) memcpy(y, out + skip, (size_t)(4 - skip));
        }
    }
    return 0;
}

// The packed and direct paths. Out of line, so that the few-row branch leaves its register
// allocation alone (inlined into run() with it, its loops ran ~6% slower on the Cortex-M4).
#if defined(__GNUC__)
__attribute__((noinline))
#endif
int run_blocks(const Product &p)
{
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

}  // namespace

int run(const Product &p)
{
    if (p.rows <= 0 || p.channels <= 0 || p.k <= 0) return 0;
    if (!few_rows(p.rows, p.k, p.channels)) return run_blocks(p);
    return p.per_tensor ? run_few<false>(p) : run_few<true>(p);
}

}  // namespace mm
}  // namespace tigris_s8
