// Typed element access and the two- and three-operand walks used by the elementwise kernels.
#pragma once

#include <string.h>

#include "kernels/common/operands.h"
#include "kernels/common/walk.h"

namespace tigris_rt {
namespace f32 {

template <typename T>
struct Unsigned;
template <>
struct Unsigned<int32_t> {
    typedef uint32_t type;
    static constexpr bool is_signed = true;
};
template <>
struct Unsigned<int64_t> {
    typedef uint64_t type;
    static constexpr bool is_signed = true;
};
template <>
struct Unsigned<uint8_t> {
    typedef uint8_t type;
    static constexpr bool is_signed = false;
};

template <typename T>
inline T load(const uint8_t *p)
{
    T v;
    memcpy(&v, p, sizeof(T));
    return v;
}
template <typename T>
inline void store(uint8_t *p, T v)
{
    memcpy(p, &v, sizeof(T));
}

// Walk over output 0 under the call's band with the given operand views.
inline int start_walk(const kern::Call &c, const kern::Band &band, const kern::OperandView *ops, int n, kern::Walk *w)
{
    kern::walk_init(w, kern::output0_view(c, band));
    for (int k = 0; k < n; ++k)
        if (!kern::walk_add(w, ops[k].view)) return -1;
    return 0;
}

// out[i] = f(a[i], b[i]) with Tin operands and a Tout output; f returns false to fail.
template <typename Tin, typename Tout, typename F>
int map2(const kern::Walk &w, F f)
{
    bool ok = true;
    kern::walk_rows(w, [&](uint8_t *const *p, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; ++i) {
            Tout r;
            if (!f(load<Tin>(p[1] + i * st[1]), load<Tin>(p[2] + i * st[2]), &r)) ok = false;
            store<Tout>(p[0] + i * st[0], r);
        }
    });
    return ok ? 0 : -1;
}

// out[i] = f(a[i]).
template <typename Tin, typename Tout, typename F>
void map1(const kern::Walk &w, F f)
{
    kern::walk_rows(w, [&](uint8_t *const *p, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; ++i) store<Tout>(p[0] + i * st[0], f(load<Tin>(p[1] + i * st[1])));
    });
}

}  // namespace f32
}  // namespace tigris_rt
