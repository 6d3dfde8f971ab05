// Broadcasting walk over an output view: operands aligned right against the output (numpy
// rules), read at the output element's global coordinate. Shared by every elementwise kernel.
#pragma once

#include <stdint.h>

#include "kernels/common/geometry.h"

namespace tigris_rt {
namespace kern {

constexpr int kMaxWalkOperands = 4;

struct Walk {
    int rank;                  // iteration rank (>= 1)
    int32_t shape[kMaxRank];   // the output view's shape
    int32_t origin[kMaxRank];  // the output view's global origin
    int n;                     // operands; 0 is the output
    uint8_t *base[kMaxWalkOperands];
    int64_t stride[kMaxWalkOperands][kMaxRank];  // bytes per step of each output axis (0 = broadcast)
};

// Starts a walk over `out` (operand 0).
void walk_init(Walk *w, const View &out);
// Adds an operand read at the output's global coordinates; false when it does not cover them.
bool walk_add(Walk *w, const View &in);

// Calls fn(ptrs, inner_strides, count) for every innermost row of the output: ptrs[k] is operand
// k's first element of the row, inner_strides[k] its byte step along the row.
template <typename Fn>
void walk_rows(const Walk &w, Fn fn)
{
    for (int a = 0; a < w.rank; ++a)
        if (w.shape[a] <= 0) return;
    uint8_t *p[kMaxWalkOperands];
    int64_t inner[kMaxWalkOperands];
    int32_t idx[kMaxRank] = {};
    for (int k = 0; k < w.n; ++k) {
        p[k] = w.base[k];
        inner[k] = w.stride[k][w.rank - 1];
    }
    int32_t count = w.shape[w.rank - 1];
    for (;;) {
        fn(p, inner, count);
        int a = w.rank - 2;
        for (; a >= 0; --a) {
            for (int k = 0; k < w.n; ++k) p[k] += w.stride[k][a];
            if (++idx[a] < w.shape[a]) break;
            for (int k = 0; k < w.n; ++k) p[k] -= w.stride[k][a] * w.shape[a];
            idx[a] = 0;
        }
        if (a < 0) return;
    }
}

}  // namespace kern
}  // namespace tigris_rt
