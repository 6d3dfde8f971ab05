// DETECTION_POSTPROCESS parameters and its working-memory layout, shared by the operator rule
// and the kernel (docs/operators.md §3.8).
#pragma once

#include <stdint.h>
#include <string.h>

namespace tigris_rt {
namespace detection {

struct Params {
    uint16_t max_detections, detections_per_class, classes;
    uint8_t regular, classes_per_detection;  // classes_per_detection: fast NMS, >= 1
    float score_threshold, iou_threshold, y_scale, x_scale, h_scale, w_scale;
};

// Decodes the 32-byte DETECTION payload; false when `len` is not 32.
inline bool read_params(const uint8_t *p, uint8_t len, Params *o)
{
    if (p == nullptr || len != 32) return false;
    o->max_detections = (uint16_t)(p[0] | (p[1] << 8));
    o->detections_per_class = (uint16_t)(p[2] | (p[3] << 8));
    o->classes = (uint16_t)(p[4] | (p[5] << 8));
    o->regular = p[6];
    o->classes_per_detection = p[7] == 0 ? 1 : p[7];
    float f[6];
    memcpy(f, p + 8, 24);
    o->score_threshold = f[0], o->iou_threshold = f[1];
    o->y_scale = f[2], o->x_scale = f[3], o->h_scale = f[4], o->w_scale = f[5];
    return true;
}

// Output slots D.
inline uint32_t detections(const Params &q)
{
    return (uint32_t)q.max_detections * (q.regular ? 1u : q.classes_per_detection);
}

// Working memory (bytes) for B boxes: floats decoded[4B], scores[B], keep_scores[B];
// ints keep[B], order[max(B, C)], selected[S], cand_key[C], cand_score[C], tmp_key[C],
// tmp_score[C]; bytes active[B]; C = B + D, S = max(D, detections_per_class).
struct Layout {
    uint32_t boxes, cand, sel;
    uint64_t bytes;
};
inline Layout layout(const Params &q, uint32_t boxes)
{
    Layout l;
    uint32_t d = detections(q);
    l.boxes = boxes;
    l.cand = boxes + d;
    l.sel = d > q.detections_per_class ? d : q.detections_per_class;
    uint64_t order = boxes > l.cand ? boxes : l.cand;
    l.bytes = 4ull * (7ull * boxes + order + l.sel + 4ull * l.cand) + boxes;
    return l;
}

}  // namespace detection
}  // namespace tigris_rt
