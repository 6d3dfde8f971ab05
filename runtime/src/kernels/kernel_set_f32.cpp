// The float reference kernel set: which op types and kernel dtypes the kernels in
// runtime/src/kernels/f32/ handle, minus the families a build leaves out with
// TIGRIS_NO_KERNEL_<FAMILY> (docs/operators.md §4).
#include "kernels/kernel_set.h"

namespace tigris_rt {

namespace {

constexpr uint32_t D(uint8_t dtype) { return 1u << dtype; }
constexpr uint32_t kF = D(TIGRIS_DTYPE_FLOAT32);
constexpr uint32_t kB = D(TIGRIS_DTYPE_BOOL);
constexpr uint32_t kNum = kF | D(TIGRIS_DTYPE_INT32) | D(TIGRIS_DTYPE_INT64) | D(TIGRIS_DTYPE_UINT8);
constexpr uint32_t kAny = kNum | kB | D(TIGRIS_DTYPE_INT8) | D(TIGRIS_DTYPE_INT16);

#ifdef TIGRIS_NO_KERNEL_CONV
constexpr uint32_t kConv = 0;
#else
constexpr uint32_t kConv = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_CONV_TRANSPOSE
constexpr uint32_t kConvT = 0;
#else
constexpr uint32_t kConvT = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_POOL
constexpr uint32_t kPool = 0;
#else
constexpr uint32_t kPool = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_MATRIX
constexpr uint32_t kMatrix = 0;
#else
constexpr uint32_t kMatrix = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_BINARY
constexpr uint32_t kBinary = 0, kBinaryF = 0;
#else
constexpr uint32_t kBinary = kNum, kBinaryF = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_ACTIVATION
constexpr uint32_t kAct = 0;
#else
constexpr uint32_t kAct = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_MATH
constexpr uint32_t kMath = 0, kMathNum = 0;
#else
constexpr uint32_t kMath = kF, kMathNum = kNum;
#endif
#ifdef TIGRIS_NO_KERNEL_SOFTMAX
constexpr uint32_t kSoftmax = 0;
#else
constexpr uint32_t kSoftmax = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_NORM
constexpr uint32_t kNorm = 0;
#else
constexpr uint32_t kNorm = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_REDUCE
constexpr uint32_t kReduce = 0, kReduceBool = 0, kArg = 0, kScan = 0;
#else
constexpr uint32_t kReduce = kF, kReduceBool = kB, kArg = kNum | D(TIGRIS_DTYPE_INT8), kScan = kNum;
#endif
#ifdef TIGRIS_NO_KERNEL_RESIZE
constexpr uint32_t kResizeNearest = 0, kResizeLinear = 0;
#else
constexpr uint32_t kResizeNearest = kAny, kResizeLinear = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_MOVEMENT
constexpr uint32_t kMove = 0;
#else
constexpr uint32_t kMove = kAny;
#endif
#ifdef TIGRIS_NO_KERNEL_LOGIC
constexpr uint32_t kCompare = 0, kLogic = 0, kSelect = 0;
#else
constexpr uint32_t kCompare = kNum | kB, kLogic = kB, kSelect = kAny;
#endif
#ifdef TIGRIS_NO_KERNEL_SEQUENCE
constexpr uint32_t kSequence = 0;
#else
constexpr uint32_t kSequence = kF;
#endif
#ifdef TIGRIS_NO_KERNEL_DETECTION
constexpr uint32_t kDetection = 0;
#else
constexpr uint32_t kDetection = kF | D(TIGRIS_DTYPE_INT8);
#endif
#ifdef TIGRIS_NO_KERNEL_CAST
constexpr uint32_t kCast = 0;
#else
constexpr uint32_t kCast = kAny;
#endif

// Kernel dtypes handled per op type (index = opcode).
uint32_t dtypes_for(uint8_t op_type)
{
    switch (op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE:
    case TIGRIS_OP_CONV1D: return kConv;
    case TIGRIS_OP_CONV_TRANSPOSE: return kConvT;
    case TIGRIS_OP_MAX_POOL:
    case TIGRIS_OP_AVG_POOL:
    case TIGRIS_OP_L2_POOL:
    case TIGRIS_OP_GLOBAL_AVG:
    case TIGRIS_OP_GLOBAL_MAX: return kPool;
    case TIGRIS_OP_FULLY_CONN:
    case TIGRIS_OP_MATMUL: return kMatrix;
    case TIGRIS_OP_ADD:
    case TIGRIS_OP_SUB:
    case TIGRIS_OP_MUL:
    case TIGRIS_OP_DIV:
    case TIGRIS_OP_MAXIMUM:
    case TIGRIS_OP_MINIMUM:
    case TIGRIS_OP_FLOOR_DIV:
    case TIGRIS_OP_FLOOR_MOD:
    case TIGRIS_OP_ADD_N: return kBinary;
    case TIGRIS_OP_SQUARED_DIFFERENCE:
    case TIGRIS_OP_PRELU: return kBinaryF;
    case TIGRIS_OP_RELU:
    case TIGRIS_OP_RELU6:
    case TIGRIS_OP_CLIP:
    case TIGRIS_OP_LEAKY_RELU:
    case TIGRIS_OP_ELU:
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH:
    case TIGRIS_OP_HARDSWISH:
    case TIGRIS_OP_ERF: return kAct;
    case TIGRIS_OP_ABS:
    case TIGRIS_OP_NEG: return kMathNum;
    case TIGRIS_OP_RSQRT:
    case TIGRIS_OP_EXP:
    case TIGRIS_OP_LOG:
    case TIGRIS_OP_SQRT:
    case TIGRIS_OP_SQUARE:
    case TIGRIS_OP_FLOOR:
    case TIGRIS_OP_CEIL:
    case TIGRIS_OP_ROUND:
    case TIGRIS_OP_SIN:
    case TIGRIS_OP_COS: return kMath;
    case TIGRIS_OP_SOFTMAX:
    case TIGRIS_OP_LOG_SOFTMAX: return kSoftmax;
    case TIGRIS_OP_BATCH_NORM:
    case TIGRIS_OP_INST_NORM:
    case TIGRIS_OP_LAYER_NORM:
    case TIGRIS_OP_L2_NORMALIZATION: return kNorm;
    case TIGRIS_OP_REDUCE_MEAN:
    case TIGRIS_OP_REDUCE_MAX:
    case TIGRIS_OP_REDUCE_MIN:
    case TIGRIS_OP_REDUCE_SUM: return kReduce;
    case TIGRIS_OP_REDUCE_ALL: return kReduceBool;
    case TIGRIS_OP_ARG_MAX:
    case TIGRIS_OP_ARG_MIN: return kArg;
    case TIGRIS_OP_CUMSUM: return kScan;
    case TIGRIS_OP_RESIZE: return kResizeNearest;
    case TIGRIS_OP_RESIZE_LINEAR: return kResizeLinear;
    case TIGRIS_OP_CONCAT:
    case TIGRIS_OP_SPLIT:
    case TIGRIS_OP_PAD:
    case TIGRIS_OP_MIRROR_PAD:
    case TIGRIS_OP_TRANSPOSE:
    case TIGRIS_OP_FLATTEN:
    case TIGRIS_OP_RESHAPE:
    case TIGRIS_OP_SQUEEZE:
    case TIGRIS_OP_UNSQUEEZE:
    case TIGRIS_OP_GATHER:
    case TIGRIS_OP_GATHER_ND:
    case TIGRIS_OP_STRIDED_SLICE:
    case TIGRIS_OP_REVERSE_V2:
    case TIGRIS_OP_EMBEDDING_LOOKUP:
    case TIGRIS_OP_DYNAMIC_UPDATE_SLICE: return kMove;
    case TIGRIS_OP_EQUAL:
    case TIGRIS_OP_LESS:
    case TIGRIS_OP_LESS_EQUAL:
    case TIGRIS_OP_GREATER:
    case TIGRIS_OP_GREATER_EQUAL: return kCompare;
    case TIGRIS_OP_LOGICAL_AND:
    case TIGRIS_OP_LOGICAL_OR:
    case TIGRIS_OP_LOGICAL_NOT: return kLogic;
    case TIGRIS_OP_SELECT_V2: return kSelect;
    case TIGRIS_OP_CAST: return kCast;
    case TIGRIS_OP_SVDF:
    case TIGRIS_OP_LSTM: return kSequence;
    case TIGRIS_OP_DETECTION_POSTPROCESS: return kDetection;
    case TIGRIS_OP_IF:
    case TIGRIS_OP_WHILE: return kAny;  // run by the executor, no kernel
    default: return 0;
    }
}

}  // namespace

bool kernel_enabled_f32(uint8_t op_type, uint8_t dtype)
{
    if (dtype >= 32) return false;
    return (dtypes_for(op_type) & D(dtype)) != 0;
}

}  // namespace tigris_rt
