// kissfft v130's int16 real FFT (FIXED_POINT 16) as TensorFlow Lite Micro's signal library
// builds it: a complex FFT of half the length over the samples taken in pairs (mixed radix,
// recursive decimation in time, each butterfly dividing its inputs by the radix first), then
// kiss_fftr's split into the real spectrum. Every product is rounded as kissfft's sround and
// every sum wraps to int16 as its C does. Written from the algorithm, not copied: radices 2,
// 3, 4 and 5 (kissfft's generic radix needs scratch and is refused), and the half-length
// FFT writes into the output buffer, which the split then rewrites in place.
#include <math.h>

#include "kernels/signal/signal_math.h"

namespace tigris_signal {

namespace {

struct Cpx {
    int16_t r, i;
};

// Products are formed in int32 and may wrap (kissfft's int32 SAMPPROD): wrap explicitly.
inline int32_t mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
inline int16_t sround(int32_t x) { return (int16_t)((int32_t)((uint32_t)x + (1u << 14)) >> 15); }
inline int16_t smul(int32_t a, int32_t b) { return sround(mul(a, b)); }
inline Cpx cmul(Cpx a, Cpx b)
{
    return {sround((int32_t)((uint32_t)mul(a.r, b.r) - (uint32_t)mul(a.i, b.i))),
            sround((int32_t)((uint32_t)mul(a.r, b.i) + (uint32_t)mul(a.i, b.r)))};
}
inline Cpx fixdiv(Cpx c, int p)
{
    const int32_t k = 32767 / p;
    return {smul(c.r, k), smul(c.i, k)};
}
inline Cpx add(Cpx a, Cpx b) { return {(int16_t)(a.r + b.r), (int16_t)(a.i + b.i)}; }
inline Cpx sub(Cpx a, Cpx b) { return {(int16_t)(a.r - b.r), (int16_t)(a.i - b.i)}; }

constexpr int kMaxFactors = 32;

// kissfft's factorisation: fours first, then twos, then odd numbers; past sqrt(n) the rest is prime.
int factor(int n, int *f)
{
    int p = 4, count = 0, floor_sqrt = 0;
    while ((floor_sqrt + 1) * (floor_sqrt + 1) <= n) ++floor_sqrt;
    do {
        while (n % p) {
            p = p == 4 ? 2 : (p == 2 ? 3 : p + 2);
            if (p > floor_sqrt) p = n;
        }
        n /= p;
        if (count == kMaxFactors) return -1;
        f[2 * count] = p, f[2 * count + 1] = n;
        ++count;
    } while (n > 1);
    return count;
}

struct Fft {
    const int16_t *x;  // real samples, taken in pairs as complex inputs
    int32_t x_length;
    const Cpx *tw;  // the half-length FFT's twiddles
    const int *factors;

    Cpx load(int32_t k) const
    {
        const int32_t a = 2 * k, b = 2 * k + 1;
        return {a < x_length ? x[a] : (int16_t)0, b < x_length ? x[b] : (int16_t)0};
    }

    void bfly2(Cpx *out, int32_t fstride, int32_t m) const
    {
        const Cpx *tw1 = tw;
        for (int32_t k = 0; k < m; ++k, tw1 += fstride) {
            Cpx a = fixdiv(out[k], 2), b = fixdiv(out[k + m], 2);
            const Cpx t = cmul(b, *tw1);
            out[k + m] = sub(a, t);
            out[k] = add(a, t);
        }
    }

    void bfly3(Cpx *out, int32_t fstride, int32_t m) const
    {
        const Cpx epi3 = tw[fstride * m];
        const Cpx *tw1 = tw, *tw2 = tw;
        for (int32_t k = 0; k < m; ++k, tw1 += fstride, tw2 += 2 * fstride) {
            Cpx *f0 = out + k, *f1 = f0 + m, *f2 = f0 + 2 * m;
            *f0 = fixdiv(*f0, 3), *f1 = fixdiv(*f1, 3), *f2 = fixdiv(*f2, 3);
            const Cpx s1 = cmul(*f1, *tw1), s2 = cmul(*f2, *tw2);
            const Cpx s3 = add(s1, s2);
            Cpx s0 = sub(s1, s2);
            f1->r = (int16_t)(f0->r - (s3.r >> 1));
            f1->i = (int16_t)(f0->i - (s3.i >> 1));
            s0 = {smul(s0.r, epi3.i), smul(s0.i, epi3.i)};
            *f0 = add(*f0, s3);
            f2->r = (int16_t)(f1->r + s0.i);
            f2->i = (int16_t)(f1->i - s0.r);
            f1->r = (int16_t)(f1->r - s0.i);
            f1->i = (int16_t)(f1->i + s0.r);
        }
    }

    void bfly4(Cpx *out, int32_t fstride, int32_t m) const
    {
        const Cpx *tw1 = tw, *tw2 = tw, *tw3 = tw;
        for (int32_t k = 0; k < m; ++k, tw1 += fstride, tw2 += 2 * fstride, tw3 += 3 * fstride) {
            Cpx *f0 = out + k, *f1 = f0 + m, *f2 = f0 + 2 * m, *f3 = f0 + 3 * m;
            *f0 = fixdiv(*f0, 4), *f1 = fixdiv(*f1, 4), *f2 = fixdiv(*f2, 4), *f3 = fixdiv(*f3, 4);
            const Cpx s0 = cmul(*f1, *tw1), s1 = cmul(*f2, *tw2), s2 = cmul(*f3, *tw3);
            const Cpx s5 = sub(*f0, s1);
            *f0 = add(*f0, s1);
            const Cpx s3 = add(s0, s2), s4 = sub(s0, s2);
            *f2 = sub(*f0, s3);
            *f0 = add(*f0, s3);
            f1->r = (int16_t)(s5.r + s4.i);
            f1->i = (int16_t)(s5.i - s4.r);
            f3->r = (int16_t)(s5.r - s4.i);
            f3->i = (int16_t)(s5.i + s4.r);
        }
    }

    void bfly5(Cpx *out, int32_t fstride, int32_t m) const
    {
        const Cpx ya = tw[fstride * m], yb = tw[fstride * 2 * m];
        for (int32_t u = 0; u < m; ++u) {
            Cpx *f0 = out + u, *f1 = f0 + m, *f2 = f0 + 2 * m, *f3 = f0 + 3 * m, *f4 = f0 + 4 * m;
            *f0 = fixdiv(*f0, 5), *f1 = fixdiv(*f1, 5), *f2 = fixdiv(*f2, 5), *f3 = fixdiv(*f3, 5), *f4 = fixdiv(*f4, 5);
            const Cpx s0 = *f0;
            const Cpx s1 = cmul(*f1, tw[u * fstride]), s2 = cmul(*f2, tw[2 * u * fstride]);
            const Cpx s3 = cmul(*f3, tw[3 * u * fstride]), s4 = cmul(*f4, tw[4 * u * fstride]);
            const Cpx s7 = add(s1, s4), s10 = sub(s1, s4), s8 = add(s2, s3), s9 = sub(s2, s3);
            f0->r = (int16_t)(f0->r + (s7.r + s8.r));
            f0->i = (int16_t)(f0->i + (s7.i + s8.i));
            const Cpx s5 = {(int16_t)(s0.r + smul(s7.r, ya.r) + smul(s8.r, yb.r)),
                            (int16_t)(s0.i + smul(s7.i, ya.r) + smul(s8.i, yb.r))};
            const Cpx s6 = {(int16_t)(smul(s10.i, ya.i) + smul(s9.i, yb.i)),
                            (int16_t)(-smul(s10.r, ya.i) - smul(s9.r, yb.i))};
            *f1 = sub(s5, s6);
            *f4 = add(s5, s6);
            const Cpx s11 = {(int16_t)(s0.r + smul(s7.r, yb.r) + smul(s8.r, ya.r)),
                             (int16_t)(s0.i + smul(s7.i, yb.r) + smul(s8.i, ya.r))};
            const Cpx s12 = {(int16_t)(-smul(s10.i, yb.i) + smul(s9.i, ya.i)),
                             (int16_t)(smul(s10.r, yb.i) - smul(s9.r, ya.i))};
            *f2 = add(s11, s12);
            *f3 = sub(s11, s12);
        }
    }

    // kissfft's kf_work: p sub-FFTs of length m over inputs decimated by p, then the butterflies.
    void work(Cpx *out, int32_t in, int32_t fstride, const int *f) const
    {
        const int p = f[0], m = f[1];
        if (m == 1) {
            for (int j = 0; j < p; ++j) out[j] = load(in + j * fstride);
        } else {
            for (int j = 0; j < p; ++j) work(out + j * m, in + j * fstride, fstride * p, f + 2);
        }
        switch (p) {
        case 2: bfly2(out, fstride, m); break;
        case 3: bfly3(out, fstride, m); break;
        case 4: bfly4(out, fstride, m); break;
        default: bfly5(out, fstride, m); break;
        }
    }
};

}  // namespace

bool rfft_supported(int32_t fft_length)
{
    if (fft_length < 4 || fft_length % 2 != 0 || fft_length > (1 << 20)) return false;
    int f[2 * kMaxFactors];
    const int n = factor(fft_length / 2, f);
    if (n < 0) return false;
    for (int k = 0; k < n; ++k)
        if (f[2 * k] > 5) return false;
    return true;
}

bool rfft_int16(const int16_t *x, int32_t x_length, int32_t fft_length, const int16_t *twiddles, int16_t *y)
{
    if (!rfft_supported(fft_length) || x_length > fft_length) return false;
    const int32_t n = fft_length / 2;
    int f[2 * kMaxFactors];
    factor(n, f);
    const Cpx *tw = reinterpret_cast<const Cpx *>(twiddles);
    const Cpx *super = tw + n;
    Cpx *out = reinterpret_cast<Cpx *>(y);
    const Fft fft{x, x_length, tw, f};
    fft.work(out, 0, 1, f);
    // kiss_fftr's split: bins k and n - k from the half-length FFT's k and n - k, in place.
    Cpx dc = fixdiv(out[0], 2);
    out[0] = {(int16_t)(dc.r + dc.i), 0};
    out[n] = {(int16_t)(dc.r - dc.i), 0};
    for (int32_t k = 1; k <= n / 2; ++k) {
        const Cpx fpk = fixdiv(out[k], 2);
        const Cpx fpnk = fixdiv(Cpx{out[n - k].r, (int16_t)-out[n - k].i}, 2);
        const Cpx f1 = add(fpk, fpnk), f2 = sub(fpk, fpnk);
        const Cpx t = cmul(f2, super[k - 1]);
        out[k] = {(int16_t)((f1.r + t.r) >> 1), (int16_t)((f1.i + t.i) >> 1)};
        out[n - k] = {(int16_t)((f1.r - t.r) >> 1), (int16_t)((t.i - f1.i) >> 1)};
    }
    return true;
}

void rfft_twiddles(int32_t fft_length, int16_t *twiddles)
{
    // kiss_fft_alloc's and kiss_fftr_alloc's phases, in their double arithmetic, rounded as
    // FIXED_POINT's floor(.5 + 32767 * cos) / sin.
    const int32_t n = fft_length / 2;
    const double pi = 3.141592653589793238462643383279502884197169399375105820974944;
    for (int32_t i = 0; i < n; ++i) {
        const double phase = -2 * pi * i / n;
        twiddles[2 * i] = (int16_t)floor(.5 + 32767 * cos(phase));
        twiddles[2 * i + 1] = (int16_t)floor(.5 + 32767 * sin(phase));
    }
    int16_t *super = twiddles + 2 * n;
    for (int32_t i = 0; i < n / 2; ++i) {
        const double phase = -3.14159265358979323846264338327 * ((double)(i + 1) / n + .5);
        super[2 * i] = (int16_t)floor(.5 + 32767 * cos(phase));
        super[2 * i + 1] = (int16_t)floor(.5 + 32767 * sin(phase));
    }
}

}  // namespace tigris_signal
