// Broadcasting walk set-up.
#include "kernels/common/walk.h"

namespace tigris_rt {
namespace kern {

void walk_init(Walk *w, const View &out)
{
    w->rank = out.rank == 0 ? 1 : out.rank;
    w->n = 1;
    w->base[0] = out.data;
    for (int i = 0; i < w->rank; ++i) {
        bool scalar = out.rank == 0;
        w->shape[i] = scalar ? 1 : out.shape[i];
        w->origin[i] = scalar ? 0 : out.origin[i];
        w->stride[0][i] = scalar ? 0 : out.stride[i] * out.elem;
    }
}

bool walk_add(Walk *w, const View &in)
{
    if (w->n >= kMaxWalkOperands || in.rank > w->rank) return false;
    int k = w->n++;
    int off = w->rank - in.rank;
    uint8_t *base = in.data;
    for (int i = 0; i < w->rank; ++i) {
        int j = i - off;
        w->stride[k][i] = 0;
        if (j < 0 || in.shape[j] == 1) continue;
        int64_t start = (int64_t)w->origin[i] - in.origin[j];
        if (start < 0 || start + w->shape[i] > in.shape[j]) return false;
        w->stride[k][i] = in.stride[j] * in.elem;
        base += start * w->stride[k][i];
    }
    w->base[k] = base;
    return true;
}

}  // namespace kern
}  // namespace tigris_rt
