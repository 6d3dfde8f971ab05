// The kernel families (TIGRIS_NO_KERNEL_<FAMILY>) and operators (TIGRIS_ONLY_OPS) a build
// keeps. The operator table (ops/op_table.h) names each row's family; the dispatchers and the
// loader reference a kernel or rule only when a kept row uses it, and the loader refuses an op
// whose row is not kept with TIGRIS_ERR_KERNEL_DISABLED (docs/operators.md §4, docs/firmware.md).
#pragma once

#include <stdint.h>

#include "tigris.h"

namespace tigris_rt {
namespace ops {

// A kernel family a build leaves out with TIGRIS_NO_KERNEL_<FAMILY> (docs/operators.md §4).
enum class Family : uint8_t {
    kNone,  // always present (control flow runs in the executor)
    kConv,
    kConvTranspose,
    kPool,
    kMatrix,
    kBinary,
    kActivation,
    kMath,
    kSoftmax,
    kNorm,
    kReduce,
    kResize,
    kMovement,
    kLogic,
    kCast,
    kSequence,
    kDetection,
    kSignal,
};

// The FAMILY of TIGRIS_NO_KERNEL_<FAMILY> (nullptr for kNone; host code and tests).
constexpr const char *family_macro(Family f)
{
    switch (f) {
    case Family::kConv: return "CONV";
    case Family::kConvTranspose: return "CONV_TRANSPOSE";
    case Family::kPool: return "POOL";
    case Family::kMatrix: return "MATRIX";
    case Family::kBinary: return "BINARY";
    case Family::kActivation: return "ACTIVATION";
    case Family::kMath: return "MATH";
    case Family::kSoftmax: return "SOFTMAX";
    case Family::kNorm: return "NORM";
    case Family::kReduce: return "REDUCE";
    case Family::kResize: return "RESIZE";
    case Family::kMovement: return "MOVEMENT";
    case Family::kLogic: return "LOGIC";
    case Family::kCast: return "CAST";
    case Family::kSequence: return "SEQUENCE";
    case Family::kDetection: return "DETECTION";
    case Family::kSignal: return "SIGNAL";
    case Family::kNone: break;
    }
    return nullptr;
}
constexpr uint8_t kFamilyCount = (uint8_t)Family::kSignal + 1u;

}  // namespace ops

// False for a kernel family this build leaves out (TIGRIS_NO_KERNEL_<FAMILY>, docs/operators.md §4).
constexpr bool family_built(ops::Family f)
{
    switch (f) {
#ifdef TIGRIS_NO_KERNEL_CONV
    case ops::Family::kConv: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_CONV_TRANSPOSE
    case ops::Family::kConvTranspose: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_POOL
    case ops::Family::kPool: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_MATRIX
    case ops::Family::kMatrix: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_BINARY
    case ops::Family::kBinary: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_ACTIVATION
    case ops::Family::kActivation: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_MATH
    case ops::Family::kMath: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_SOFTMAX
    case ops::Family::kSoftmax: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_NORM
    case ops::Family::kNorm: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_REDUCE
    case ops::Family::kReduce: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_RESIZE
    case ops::Family::kResize: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_MOVEMENT
    case ops::Family::kMovement: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_LOGIC
    case ops::Family::kLogic: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_CAST
    case ops::Family::kCast: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_SEQUENCE
    case ops::Family::kSequence: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_DETECTION
    case ops::Family::kDetection: return false;
#endif
#ifdef TIGRIS_NO_KERNEL_SIGNAL
    case ops::Family::kSignal: return false;
#endif
    default: return true;
    }
}

// TIGRIS_ONLY_OPS=TIGRIS_OP_A,TIGRIS_OP_B,...: the only operators this build keeps (every
// operator when undefined). `tigris codegen` writes the plan's operators; a firmware running
// several plans lists the union. Finer than the families: an unused op of a used family (MaxPool
// beside GlobalAveragePool) leaves its kernel, its rule and its table row out too.
constexpr bool op_kept(uint8_t code)
{
#ifdef TIGRIS_ONLY_OPS
    constexpr uint8_t kKept[] = {TIGRIS_ONLY_OPS};
    for (uint8_t k : kKept)
        if (k == code) return true;
    return false;
#else
    (void)code;
    return true;
#endif
}

}  // namespace tigris_rt
