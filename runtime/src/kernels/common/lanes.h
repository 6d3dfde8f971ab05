// Walks for ops that work along axes: lanes (a contiguous block of axes processed as one
// vector: softmax, norms, cumsum) and reductions (any set of axes). Built on kern::Walk, so
// banded views work unchanged as long as the band does not cut the axes worked on.
#pragma once

#include "kernels/common/walk.h"

namespace tigris_rt {
namespace kern {

// Calls fn(o, i) with out's and in's element at every position of `out` (same rank, in
// broadcast against out).
template <typename Fn>
int for_each_position(const View &out, const View &in, Fn fn)
{
    Walk w;
    walk_init(&w, out);
    if (!walk_add(&w, in)) return -1;
    walk_rows(w, [&](uint8_t *const *p, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; ++i) fn(p[0] + i * st[0], p[1] + i * st[1]);
    });
    return 0;
}

// Lanes over axes [a0, a1] of two views of equal shape: fn(o, i, len, ostep, istep) per lane,
// steps in bytes. The band must not cut those axes.
template <typename Fn>
int for_each_lane(const View &out, const View &in, int a0, int a1, Fn fn)
{
    if (a0 < 0 || a1 >= out.rank || a0 > a1 || in.rank != out.rank) return -1;
    if constexpr (!bands_built()) {
        // No band in this build: both views are whole tensors (dense, origin 0), so the lanes
        // are found without the broadcasting walk.
        int64_t outer = 1, len = 1, inner = 1;
        for (int a = 0; a < out.rank; ++a) {
            if (in.shape[a] != out.shape[a]) return -1;
            (a < a0 ? outer : a <= a1 ? len : inner) *= out.shape[a];
        }
        for (int64_t x = 0; x < outer; ++x)
            for (int64_t y = 0; y < inner; ++y) {
                const int64_t at = x * len * inner + y;
                fn(out.data + at * out.elem, in.data + at * in.elem, len, inner * out.elem, inner * in.elem);
            }
        return 0;
    } else {
        View o = out, i = in;
        int64_t len = 1;
        for (int a = a0; a <= a1; ++a) {
            len *= out.shape[a];
            o.shape[a] = 1;
            i.shape[a] = 1;
        }
        int64_t ostep = out.stride[a1] * out.elem, istep = in.stride[a1] * in.elem;
        return for_each_position(o, i, [&](uint8_t *po, uint8_t *pi) { fn(po, pi, len, ostep, istep); });
    }
}

// The reduced axes of an input view: lengths and byte steps.
struct ReducedAxes {
    int n;
    int32_t len[kMaxRank];
    int64_t step[kMaxRank];
};

// Calls fn(p) for every element of a reduction group starting at `base` (index order).
template <typename Fn>
void for_each_reduced(uint8_t *base, const ReducedAxes &r, Fn fn)
{
    int32_t idx[kMaxRank] = {};
    for (int a = 0; a < r.n; ++a)
        if (r.len[a] <= 0) return;
    uint8_t *p = base;
    for (;;) {
        fn(p);
        int a = r.n - 1;
        for (; a >= 0; --a) {
            p += r.step[a];
            if (++idx[a] < r.len[a]) break;
            p -= r.step[a] * r.len[a];
            idx[a] = 0;
        }
        if (a < 0) return;
    }
}

// Reduction of `in` over the axes flagged in `reduced` into `out_keep` (in's rank, reduced dims
// 1): fn(o, group_base, axes) per output element.
template <typename Fn>
int for_each_group(const View &out_keep, const View &in, const bool *reduced, Fn fn)
{
    if (out_keep.rank != in.rank) return -1;
    View i = in;
    ReducedAxes r{};
    for (int a = 0; a < in.rank; ++a)
        if (reduced[a]) {
            r.len[r.n] = in.shape[a];
            r.step[r.n++] = in.stride[a] * in.elem;
            i.shape[a] = 1;
        }
    return for_each_position(out_keep, i, [&](uint8_t *po, uint8_t *pi) { fn(po, pi, r); });
}

}  // namespace kern
}  // namespace tigris_rt

namespace tigris_rt {
namespace kern {

// Copies src into dst element by element at dst's coordinates (src broadcast against dst);
// rows that are contiguous on both sides move with one memmove.
int copy_view(const View &dst, const View &src);

}  // namespace kern
}  // namespace tigris_rt
