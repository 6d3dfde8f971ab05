// DETECTION_POSTPROCESS (TFLite semantics, docs/operators.md §3.8): decode boxes against the
// anchors, then fast (best class per box) or regular (per class) non-maximum suppression.
// Sorting is stable (ties keep the lower index first); scratch lives in output 4.
#include <string.h>

#include "kernels/common/detection.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

struct Scratch {
    float *decoded, *scores, *keep_scores, *cand_score, *tmp_score;
    int32_t *keep, *order, *selected, *cand_key, *tmp_key;
    uint8_t *active;
};

Scratch carve(uint8_t *base, const detection::Layout &l)
{
    Scratch s;
    float *f = reinterpret_cast<float *>(base);
    s.decoded = f, f += 4 * l.boxes;
    s.scores = f, f += l.boxes;
    s.keep_scores = f, f += l.boxes;
    int32_t *i = reinterpret_cast<int32_t *>(f);
    s.keep = i, i += l.boxes;
    s.order = i, i += l.boxes > l.cand ? l.boxes : l.cand;
    s.selected = i, i += l.sel;
    s.cand_key = i, i += l.cand;
    s.cand_score = reinterpret_cast<float *>(i), i += l.cand;
    s.tmp_key = i, i += l.cand;
    s.tmp_score = reinterpret_cast<float *>(i), i += l.cand;
    s.active = reinterpret_cast<uint8_t *>(i);
    return s;
}

// order[0..n) = indices of values sorted descending, stable (insertion sort: n is small).
void stable_argsort_desc(const float *values, int32_t n, int32_t *order)
{
    for (int32_t i = 0; i < n; ++i) {
        int32_t j = i;
        while (j > 0 && values[order[j - 1]] < values[i]) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = i;
    }
}

float iou(const float *a, const float *b)
{
    float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0.0f || area_b <= 0.0f) return 0.0f;
    float ih = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
    float iw = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]);
    float inter = (ih > 0.0f ? ih : 0.0f) * (iw > 0.0f ? iw : 0.0f);
    return inter / (area_a + area_b - inter);
}

// Single-class NMS over s.scores[0..boxes): box indices into s.selected; returns their count.
int32_t nms(const Scratch &s, int32_t boxes, const detection::Params &q, int32_t max_out)
{
    int32_t kept = 0;
    for (int32_t b = 0; b < boxes; ++b)
        if (s.scores[b] >= q.score_threshold) s.keep[kept] = b, s.keep_scores[kept++] = s.scores[b];
    stable_argsort_desc(s.keep_scores, kept, s.order);
    for (int32_t k = 0; k < kept; ++k) s.active[k] = 1;
    int32_t n = 0;
    for (int32_t i = 0; i < kept && n < max_out; ++i) {
        if (!s.active[i]) continue;
        int32_t bi = s.keep[s.order[i]];
        s.selected[n++] = bi;
        for (int32_t j = i + 1; j < kept; ++j)
            if (s.active[j] && iou(s.decoded + 4 * bi, s.decoded + 4 * s.keep[s.order[j]]) > q.iou_threshold)
                s.active[j] = 0;
    }
    return n;
}

// Class scores, read as float (int8 scores dequantized on read); column 0 is the first class.
struct ScoreReader {
    const uint8_t *p;
    const tigris_quant_param_t *q;  // NULL for float32
    int32_t width, offset;
    float at(int32_t box, int32_t cls) const
    {
        int64_t k = (int64_t)box * width + offset + cls;
        if (q == nullptr) {
            float v;
            memcpy(&v, p + 4 * k, 4);
            return v;
        }
        return (float)((double)q->scale * (double)((int8_t)p[k] - q->zero_point));
    }
};

// The class ranked after (pv, pi) in (score descending, index ascending) order.
int32_t next_class(const ScoreReader &r, int32_t box, int32_t classes, float pv, int32_t pi)
{
    int32_t best = -1;
    float bv = 0.0f;
    for (int32_t c = 0; c < classes; ++c) {
        float v = r.at(box, c);
        bool after_prev = pi < 0 || v < pv || (v == pv && c > pi);
        if (after_prev && (best < 0 || v > bv)) best = c, bv = v;
    }
    return best;
}

struct Outputs {
    float *boxes, *classes, *scores, *count;
};

void emit(const Outputs &o, const Scratch &s, int32_t slot, int32_t box, int32_t cls, float score)
{
    memcpy(o.boxes + 4 * slot, s.decoded + 4 * box, 16);
    o.classes[slot] = (float)cls;
    o.scores[slot] = score;
}

void fast_nms(const Outputs &o, const Scratch &s, const ScoreReader &r, int32_t boxes, const detection::Params &q)
{
    int32_t k = q.classes_per_detection < q.classes ? q.classes_per_detection : q.classes;
    for (int32_t b = 0; b < boxes; ++b) s.scores[b] = r.at(b, next_class(r, b, q.classes, 0.0f, -1));
    int32_t n = nms(s, boxes, q, q.max_detections);
    for (int32_t i = 0; i < n; ++i) {
        int32_t box = s.selected[i], cls = -1;
        float v = 0.0f;
        for (int32_t col = 0; col < k; ++col) {
            cls = next_class(r, box, q.classes, v, cls);
            v = r.at(box, cls);
            emit(o, s, k * i + col, box, cls, v);
        }
    }
    o.count[0] = (float)n;
}

void regular_nms(const Outputs &o, const Scratch &s, const ScoreReader &r, int32_t boxes, const detection::Params &q)
{
    int32_t d = q.max_detections, have = 0;
    for (int32_t c = 0; c < q.classes; ++c) {
        for (int32_t b = 0; b < boxes; ++b) s.scores[b] = r.at(b, c);
        int32_t n = nms(s, boxes, q, q.detections_per_class);
        for (int32_t i = 0; i < n; ++i) {
            s.cand_key[have + i] = s.selected[i] * q.classes + c;
            s.cand_score[have + i] = s.scores[s.selected[i]];
        }
        int32_t total = have + n;
        stable_argsort_desc(s.cand_score, total, s.order);
        have = total < d ? total : d;
        for (int32_t i = 0; i < have; ++i)
            s.tmp_key[i] = s.cand_key[s.order[i]], s.tmp_score[i] = s.cand_score[s.order[i]];
        memcpy(s.cand_key, s.tmp_key, (size_t)have * 4);
        memcpy(s.cand_score, s.tmp_score, (size_t)have * 4);
    }
    for (int32_t i = 0; i < have; ++i)
        emit(o, s, i, s.cand_key[i] / q.classes, s.cand_key[i] % q.classes, s.cand_score[i]);
    o.count[0] = (float)have;
}

// Reads input `i` as float (int8 inputs are dequantized) into dst.
bool read_floats(const Call &c, uint8_t i, float *dst, uint32_t n)
{
    const tigris_tensor_t &t = c.in(i);
    const uint8_t *p = c.in_ptr(i);
    if (p == nullptr) return false;
    if (t.dtype == TIGRIS_DTYPE_FLOAT32) {
        memcpy(dst, p, (size_t)n * 4);
        return true;
    }
    const tigris_quant_param_t *qp = tigris_tensor_quant(c.plan, &t);
    if (qp == nullptr) return false;
    for (uint32_t k = 0; k < n; ++k) dst[k] = (float)((double)qp->scale * (double)((int8_t)p[k] - qp->zero_point));
    return true;
}

}  // namespace

int detection_postprocess(const Call &c)
{
    uint8_t len = 0;
    detection::Params q;
    const uint8_t *payload = c.attr(TIGRIS_ATTR_DETECTION, &len);
    if (c.tiled() || !detection::read_params(payload, len, &q)) return -1;
    const int32_t *ss = c.shape(c.in(1));
    int32_t boxes = ss[1], width = ss[2], offset = width - q.classes;
    detection::Layout l = detection::layout(q, (uint32_t)boxes);
    const float *anchors = static_cast<const float *>(c.weight());
    uint8_t *work = c.out_ptr(4);
    if (anchors == nullptr || work == nullptr || c.out(4).size_bytes < l.bytes || offset < 0 || offset > 1) return -1;
    Outputs o{reinterpret_cast<float *>(c.out_ptr(0)), reinterpret_cast<float *>(c.out_ptr(1)),
              reinterpret_cast<float *>(c.out_ptr(2)), reinterpret_cast<float *>(c.out_ptr(3))};
    uint32_t d = detection::detections(q);
    memset(o.boxes, 0, (size_t)d * 16), memset(o.classes, 0, (size_t)d * 4), memset(o.scores, 0, (size_t)d * 4);
    Scratch s = carve(work, l);
    if (!read_floats(c, 0, s.decoded, 4u * (uint32_t)boxes)) return -1;
    for (int32_t b = 0; b < boxes; ++b) {
        float *e = s.decoded + 4 * b;
        const float *a = anchors + 4 * b;
        float yc = e[0] / q.y_scale * a[2] + a[0], xc = e[1] / q.x_scale * a[3] + a[1];
        float hh = 0.5f * expf(e[2] / q.h_scale) * a[2], hw = 0.5f * expf(e[3] / q.w_scale) * a[3];
        e[0] = yc - hh, e[1] = xc - hw, e[2] = yc + hh, e[3] = xc + hw;
    }
    ScoreReader r{c.in_ptr(1), c.in(1).dtype == TIGRIS_DTYPE_FLOAT32 ? nullptr : tigris_tensor_quant(c.plan, &c.in(1)),
                  width, offset};
    if (r.p == nullptr || (c.in(1).dtype != TIGRIS_DTYPE_FLOAT32 && r.q == nullptr)) return -1;
    if (q.regular) regular_nms(o, s, r, boxes, q);
    else fast_nms(o, s, r, boxes, q);
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
