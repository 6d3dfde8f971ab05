// Routes of the accelerated backends, read from the operator table.
#include "backends/common/accel_routes.h"

namespace tigris_accel {

bool backend_takes(Backend backend, uint8_t op_type)
{
    const tigris_rt::ops::OpInfo *row = tigris_rt::ops::op_info(op_type);
    return row != nullptr && (row->accel & (uint8_t)backend) != 0;
}

Route route(Backend backend, bool int8_plan, uint8_t op_type)
{
    if (!int8_plan) return Route::kFloatReference;
    if (backend_takes(backend, op_type)) return Route::kNative;
    const tigris_rt::ops::OpInfo *row = tigris_rt::ops::op_info(op_type);
    // An op with an int8 kernel, or whose float kernel moves int8 bytes, stays on the int8
    // path; any other op of an int8 plan belongs to a float32 section.
    const bool int8_kernel =
        row != nullptr && (row->s8 != tigris_rt::ops::S8::kNone || (row->f32_dtypes & tigris_rt::ops::kI8) != 0);
    return int8_kernel ? Route::kInt8Reference : Route::kFloatReference;
}

}  // namespace tigris_accel
