// Rule of DETECTION_POSTPROCESS (docs/operators.md §3.8).
#include <math.h>

#include "kernels/common/detection.h"
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

bool positive(float f) { return isfinite(f) && f > 0.0f; }

bool shape_is(const OpView &v, const tigris_tensor_t &t, uint8_t rank, const int32_t *dims)
{
    if (t.ndim != rank) return false;
    const int32_t *s = v.shape(t);
    for (uint8_t i = 0; i < rank; ++i)
        if (s[i] != dims[i]) return false;
    return true;
}

}  // namespace

bool check_detection(const OpView &v)
{
    if (v.num_in() != 2 || v.num_out() != 5 || !v.has_weight() || v.has_bias()) return false;
    uint8_t len = 0;
    detection::Params q;
    const uint8_t *payload = v.attr(TIGRIS_ATTR_DETECTION, &len);
    if (!detection::read_params(payload, len, &q)) return false;
    if (q.max_detections < 1 || q.classes < 1 || q.regular > 1 || (q.regular && q.detections_per_class < 1))
        return false;
    if (!isfinite(q.score_threshold) || !(q.iou_threshold > 0.0f && q.iou_threshold <= 1.0f)) return false;
    if (!positive(q.y_scale) || !positive(q.x_scale) || !positive(q.h_scale) || !positive(q.w_scale)) return false;
    const tigris_tensor_t &enc = v.in(0), &sc = v.in(1);
    if (enc.dtype != sc.dtype || (enc.dtype != TIGRIS_DTYPE_FLOAT32 && enc.dtype != TIGRIS_DTYPE_INT8)) return false;
    if (enc.dtype == TIGRIS_DTYPE_INT8 &&
        (tigris_tensor_quant(v.plan, &enc) == nullptr || tigris_tensor_quant(v.plan, &sc) == nullptr))
        return false;
    if (enc.ndim != 3 || sc.ndim != 3) return false;
    const int32_t *es = v.shape(enc), *ss = v.shape(sc);
    int32_t boxes = es[1];
    if (es[0] != 1 || es[2] != 4 || ss[0] != 1 || ss[1] != boxes) return false;
    if (ss[2] != q.classes && ss[2] != q.classes + 1) return false;
    if (v.weight_bytes() != (uint64_t)boxes * 16u) return false;
    int32_t d = (int32_t)detection::detections(q);
    const int32_t box_dims[3] = {1, d, 4}, row_dims[2] = {1, d}, one[1] = {1};
    for (uint8_t i = 0; i < 4; ++i)
        if (v.out(i).dtype != TIGRIS_DTYPE_FLOAT32) return false;
    if (!shape_is(v, v.out(0), 3, box_dims) || !shape_is(v, v.out(1), 2, row_dims) ||
        !shape_is(v, v.out(2), 2, row_dims) || !shape_is(v, v.out(3), 1, one))
        return false;
    const tigris_tensor_t &work = v.out(4);
    return work.dtype == TIGRIS_DTYPE_UINT8 && work.size_bytes >= detection::layout(q, (uint32_t)boxes).bytes;
}

}  // namespace rules
}  // namespace tigris_rt
