// One out-of-line copy of tigris_op_attribute_data (tigris.h's static inline) for the rules'
// attribute reads (rules::OpView::attr) and, in a build without bands (each kernel called once
// per op), the kernels' (kern::Call::attr), which otherwise carry the binary search inlined;
// defined in plan/plan_helpers.cpp.
#pragma once

#include <stdint.h>

#include "tigris.h"

namespace tigris_rt {

const uint8_t *op_attribute(const tigris_plan_t *plan, uint16_t op_index, uint8_t kind, uint8_t *len);

}  // namespace tigris_rt
