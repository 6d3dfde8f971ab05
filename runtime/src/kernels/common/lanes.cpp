// View copies (movement kernels).
#include "kernels/common/lanes.h"

#include <string.h>

namespace tigris_rt {
namespace kern {

int copy_view(const View &dst, const View &src)
{
    if (dst.elem != src.elem) return -1;
    Walk w;
    walk_init(&w, dst);
    if (!walk_add(&w, src)) return -1;
    uint32_t e = dst.elem;
    walk_rows(w, [e](uint8_t *const *p, const int64_t *st, int32_t n) {
        if (st[0] == e && st[1] == e) {
            memmove(p[0], p[1], (size_t)n * e);
            return;
        }
        for (int32_t i = 0; i < n; ++i) memcpy(p[0] + i * st[0], p[1] + i * st[1], e);
    });
    return 0;
}

}  // namespace kern
}  // namespace tigris_rt
