// The int8 ADD fast path (s8_add.h). Why each step is exact, with x = a + off (|x| <= 384),
// m >= 0 and e >= 0 the right shift of a factor (m, -e):
// * SRDHM(x * 2^20, m) = floor((x * 2^20 * m + 2^30) / 2^31) = floor((xs * m + 2^31) / 2^32) with
//   xs = x * 2^21 (|xs| < 2^30): the high word of a multiply-long onto the nudge 2^31. It never
//   saturates (xs * 2^20 is not INT32_MIN), and has the sign of x (or is 0), as m >= 0.
// * RDBPOT(h, e), e >= 1, rounds half away from zero: floor((h + 2^(e-1) - [h < 0]) / 2^e). The
//   constant added to h is an integer, so it joins the high word of the multiply-long (floor of a
//   floor by 2^e is one floor), and [x < 0] may stand for [h < 0]: where they differ h is 0 and
//   either gives 0. (RDBPOT by 0 is the identity, which this form cannot express: a factor
//   (m, 0) is taken only as the unit factor (2^30, 0), below.)
// * The unit factor (2^30, 0) gives exactly x * 2^19. So does (2^31 - 1, -1) in the form above:
//   floor((xs * (2^31 - 1) + 2^31) / 2^32) = x * 2^20 + floor(1/2 - x / 2^11) = x * 2^20 for
//   |x| <= 384, then (x * 2^20 + 1 - [x < 0]) >> 1 = x * 2^19; the other operand takes it when
//   both are unit (equal input scales). The sum a' + b' is below 2^30
//   in magnitude, so its double is the output multiply's xs, and the output's rounding constant
//   takes the zero point too: + zy * 2^eo (|zy| <= 128, eo <= 23: the high word stays below 2^31).
// * clamp(v, act_min, act_max) = clamp(ssat8(v), act_min, act_max) for int8 bounds.
#include "kernels/s8/s8_add.h"

#include <string.h>

#include "kernels/s8/s8_dot.h"  // TIGRIS_S8_DSP, arm_acle.h
#include "kernels/s8/s8_fixed_point.h"

// Inlined even at -Os (the Cortex-M build): the per-element arithmetic is a dozen instructions.
#if defined(__GNUC__)
#  define TIGRIS_ADD_INLINE inline __attribute__((always_inline))
#else
#  define TIGRIS_ADD_INLINE inline
#endif

namespace tigris_s8 {
namespace add_fast {
namespace {

// floor((acc * 2^32 + 2^31 + x * m) / 2^32): on Arm one SMLAL onto (2^31, acc).
TIGRIS_ADD_INLINE int32_t mul_high(int32_t x, int32_t m, int32_t acc)
{
    const int64_t init = (int64_t)(((uint64_t)(uint32_t)acc << 32) | 0x80000000u);
    return (int32_t)((init + (int64_t)x * m) >> 32);
}

// One output before saturation: RDBPOT(SRDHM(2 * (u' + g'), mo) ..., eo) + zy.
TIGRIS_ADD_INLINE int32_t add_one(const Prepared &k, int32_t u, int32_t g)
{
    const int32_t xs = k.cg + g * (1 << 21);
    const int32_t rg = mul_high(xs, k.mg, k.kg + (xs >> 31)) >> k.eg;
    const int32_t raw2 = k.cu + u * (1 << 20) + rg * 2;
    return mul_high(raw2, k.mo, k.ko + (raw2 >> 31)) >> k.eo;
}

// ---- Byte lanes: saturation to int8, four bytes clamped to [lo, hi] at once ----------------
#if defined(TIGRIS_S8_DSP)
TIGRIS_ADD_INLINE uint32_t sat8(int32_t v) { return (uint32_t)__ssat(v, 8); }
// max(w, lo) then min(w, hi) per signed byte: SSUB8 sets the GE flags, SEL picks.
TIGRIS_ADD_INLINE uint32_t clamp4(uint32_t w, uint32_t lo4, uint32_t hi4)
{
    (void)__ssub8((int8x4_t)w, (int8x4_t)lo4);
    w = __sel(w, lo4);
    (void)__ssub8((int8x4_t)w, (int8x4_t)hi4);
    return __sel(hi4, w);
}
#else
TIGRIS_ADD_INLINE uint32_t sat8(int32_t v) { return (uint32_t)clamp_s8(v); }
TIGRIS_ADD_INLINE uint32_t clamp4(uint32_t w, uint32_t lo4, uint32_t hi4)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 8) {
        const int32_t v = (int8_t)(w >> i), lo = (int8_t)(lo4 >> i), hi = (int8_t)(hi4 >> i);
        r |= (uint32_t)(uint8_t)(v < lo ? lo : (v > hi ? hi : v)) << i;
    }
    return r;
}
#endif

// Four saturated outputs (sign-extended bytes) as one word, output 0 in the low byte: halfword
// pairs (PKHBT) whose bytes 0 and 2 are kept (UXTB16), the odd pair shifted into bytes 1 and 3.
TIGRIS_ADD_INLINE uint32_t pack4(uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3)
{
    const uint32_t even = ((v0 & 0xFFFFu) | (v2 << 16)) & 0x00FF00FFu, odd = ((v1 & 0xFFFFu) | (v3 << 16)) & 0x00FF00FFu;
    return even | (odd << 8);
}

uint32_t byte4(int32_t v) { return (uint32_t)(uint8_t)v * 0x01010101u; }

// u: the unit operand, g: the other; four outputs per pass, the rest one at a time through
// the same lanes.
void run_loop(const Prepared &p, const int8_t *u, const int8_t *g, int8_t *y, int32_t n)
{
    const Prepared k = p;
    for (; n >= 4; n -= 4, u += 4, g += 4, y += 4) {
        const uint32_t v0 = sat8(add_one(k, u[0], g[0])), v1 = sat8(add_one(k, u[1], g[1]));
        const uint32_t v2 = sat8(add_one(k, u[2], g[2])), v3 = sat8(add_one(k, u[3], g[3]));
        const uint32_t w = clamp4(pack4(v0, v1, v2, v3), k.lo4, k.hi4);
        memcpy(y, &w, 4);
    }
    for (; n > 0; n--, u++, g++, y++) *y = (int8_t)clamp4(sat8(add_one(k, *u, *g)) & 0xFFu, k.lo4, k.hi4);
}

}  // namespace

bool prepare(const AddSubParams &f, int32_t act_min, int32_t act_max, Prepared *p)
{
    if (f.left_shift != 20 || act_min > act_max || act_min < -128 || act_max > 127) return false;
    const bool a_unit = f.input1_multiplier == (1 << 30) && f.input1_shift == 0;
    const bool b_unit = f.input2_multiplier == (1 << 30) && f.input2_shift == 0;
    if (!a_unit && !b_unit) return false;
    const bool swap = !a_unit, both = a_unit && b_unit;
    const int32_t off_u = swap ? f.input2_offset : f.input1_offset, off_g = swap ? f.input1_offset : f.input2_offset;
    const int32_t mg = both ? INT32_MAX : (swap ? f.input1_multiplier : f.input2_multiplier);
    const int32_t sg = both ? -1 : (swap ? f.input1_shift : f.input2_shift), zy = f.output_offset;
    if (off_u < -256 || off_u > 256 || off_g < -256 || off_g > 256 || zy < -128 || zy > 128) return false;
    if (mg < 0 || sg > -1 || sg < -31 || f.output_multiplier < 0 || f.output_shift > -1 || f.output_shift < -23)
        return false;
    p->swap = swap;
    p->cu = off_u * (1 << 20);
    p->cg = off_g * (1 << 21);
    p->mg = mg;
    p->eg = -sg;
    p->kg = (int32_t)1 << (p->eg - 1);
    p->mo = f.output_multiplier;
    p->eo = -f.output_shift;
    p->ko = ((int32_t)1 << (p->eo - 1)) + zy * ((int32_t)1 << p->eo);
    p->lo4 = byte4(act_min);
    p->hi4 = byte4(act_max);
    return true;
}

void run(const Prepared &p, const int8_t *a, const int8_t *b, int8_t *y, int32_t n)
{
    if (p.swap) run_loop(p, b, a, y, n);
    else run_loop(p, a, b, y, n);
}

}  // namespace add_fast
}  // namespace tigris_s8
