// The operator table: what each plan opcode is, written once. One row per opcode (1 to
// TIGRIS_OP_TYPE_MAX) gives its names, its kernel per dtype, the contract's dtype class, the
// attribute kinds it may carry, the loader rule that checks it, its band classes, the
// accelerated backends that may take it and the kernel family a build can leave out.
// Everything else is derived from it: the kernel sets and both reference dispatchers
// (kernels/), the loader's attribute and dtype rules (plan/op_rules*.cpp), the band classes
// (plan/band_rules.cpp), the backends' routing (backends/common/accel_routes.cpp), and on the
// host the compiler's lowering checks, the report names and codegen. docs/operators.md is
// checked against it by tests/unit/op_table. A constexpr table (not an X-macro): rows are
// typed, read like a list, and the compiler and tests evaluate them at compile time; it lives
// in .rodata, so the runtime gains no static constructor.
#pragma once

#include <stdint.h>

#include "ops/op_family.h"
#include "tigris.h"

namespace tigris_rt {
namespace ops {

// The float reference kernel (kernels/f32/, also every non-quantized dtype) of an op.
enum class F32 : uint8_t {
    kNone,
    kConv,
    kConvTranspose,
    kPool,
    kGlobalPool,
    kFullyConnected,
    kMatMul,
    kBinary,
    kAddN,
    kUnary,
    kCast,
    kSoftmax,
    kNorm,
    kReduce,
    kResize,
    kConcatSplit,
    kPad,
    kTranspose,
    kReshape,
    kGather,
    kSlice,
    kSvdf,
    kLstm,
    kDetection,
    kSignal,
    kConstant,
};

// The int8 reference kernel (kernels/s8/) of an op on quantized int8 data.
enum class S8 : uint8_t {
    kNone,
    kConv,
    kDepthwise,
    kFullyConnected,
    kAvgPool,
    kMaxPool,
    kGlobalAvg,
    kGlobalMax,
    kReduceMean,
    kReduceMax,
    kReduceMin,
    kReduceSum,
    kAdd,
    kSub,
    kMul,
    kMaximum,
    kMinimum,
    kRelu,
    kRelu6,
    kClip,
    kLeakyRelu,
    kHardSwish,
    kSigmoid,
    kTanh,
    kSoftmax,
    kResizeNearest,
    kResizeBilinear,
    kCopy,
    kConcat,
    kPad,
    kTranspose,
    kStridedSlice,
    kQuantizeCast,
    kSvdf,
    kLstm,
    kTable,
};

// The int16 reference kernel (kernels/s16/) of an op on quantized int16 data (16x8
// quantization: int16 activations, int8 weights). kByteMovement: TFLite moves int16 bytes
// as they are, so the float kernel runs it (the row's f32 kernel must take int16).
enum class S16 : uint8_t {
    kNone,
    kConv,
    kDepthwise,
    kFullyConnected,
    kConvTranspose,
    kAvgPool,
    kMaxPool,
    kGlobalAvg,
    kGlobalMax,
    kReduceMean,
    kAdd,
    kSub,
    kMul,
    kLeakyRelu,
    kSigmoid,
    kTanh,
    kSoftmax,
    kPad,
    kByteMovement,
    kQuantizeCast,
    kLstm,
};

// The loader rule (plan/op_rules_*.cpp) that checks an op's operands, shapes and attributes.
enum class Rule : uint8_t {
    kNone,
    kConv,  // Conv, Depthwise, Conv1D
    kConvTranspose,
    kFullyConnected,
    kMatMul,
    kPool,
    kGlobalPool,
    kResize,
    kBinary,  // broadcast binary ops, comparisons, logic, Select
    kAddN,
    kUnary,  // one input, same shape and dtype (Cast: any pair)
    kSoftmax,
    kNorm,
    kReduce,
    kArg,
    kCumSum,
    kConcatSplit,
    kPad,
    kMirrorPad,
    kTranspose,
    kReshape,
    kGather,
    kEmbedding,
    kGatherNd,
    kStridedSlice,
    kReverse,
    kDynamicUpdateSlice,
    kSvdf,
    kLstm,
    kDetection,
    kControlFlow,
    kSignal,
    kConstant,  // no input: the output is the weight's bytes
};

// The contract's data dtype class (docs/operators.md §1 "Dtypes", the T of each row).
enum class DtypeClass : uint8_t {
    kSpecial,  // the row states its own dtypes
    kF,        // float32
    kN,        // numeric: float32, int32, int64, uint8 (and plain int8)
    kB,        // bool
    kA,        // any dtype with a size (byte movement)
};

// Band classes (plan/band_rules.h): how a banded stage may carry the op.
enum : uint16_t {
    kBandUnary = 1u << 0,         // elementwise on one tensor
    kBandBinary = 1u << 1,        // elementwise on broadcast operands
    kBandChannel = 1u << 2,       // normalizes along its axes (default the last)
    kBandJoin = 1u << 3,          // Concat, Split, Gather, StridedSlice off the banded axes
    kBandStripe = 1u << 4,        // the spatial op of a rank-4 stripe (and of a 2-D tile)
    kBandHw = 1u << 5,            // the spatial op of a 2-D tile
    kBandLine = 1u << 6,          // the spatial op of a rank-3 stripe (Conv1D, 1-D pools)
    kBandChainSpatial = 1u << 7,  // a spatial member of a chain
    kBandChain = 1u << 8,         // any other member of a chain
    kBandAxes = 1u << 9,          // bands only when its axis attribute leaves the banded axes alone
    kBandByInput = 1u << 10,      // a reduction read by bands of input rows
    kBandReshape = 1u << 11,      // a byte copy banded over a leading extent both shapes share
    kBandChannelSpatial = 1u << 12,  // the spatial op of a channel band: each output channel reads its own
    kBandChannelMix = 1u << 13,      // the spatial op of an output-channel band: every input channel (one group)
                                     // (Conv on rank 4; FullyConnected on rank 2: output columns)
};

// Other traits the runtime asks.
enum : uint8_t {
    kTraitWindow = 1u << 0,    // reads the spatial block as a window (workspace geometry)
    kTraitControl = 1u << 1,   // control flow: run by the executor, no kernel
    kTraitBoundary = 1u << 2,  // may start a float32 section of an int8 plan (typed conversion)
    kTraitFusedAct = 1u << 3,  // may carry a fused activation (fused_act)
};

// Accelerated int8 backends that may take the op (backends/common/accel_routes.h).
enum : uint8_t {
    kAccelCmsisNn = 1u << 0,
    kAccelEspNn = 1u << 1,
};

// How the compiler lowers a plain ONNX node whose op type is the row's name (nothing when
// the lowering is the compiler's own).
enum class Lowering : uint8_t { kOwn, kUnary, kBinary };

// Kernel dtype masks: bit d = TIGRIS_DTYPE_* d.
constexpr uint32_t dtype_bit(uint8_t dtype) { return dtype < 32 ? 1u << dtype : 0u; }
constexpr uint32_t kF = dtype_bit(TIGRIS_DTYPE_FLOAT32);
constexpr uint32_t kB = dtype_bit(TIGRIS_DTYPE_BOOL);
constexpr uint32_t kNum =
    kF | dtype_bit(TIGRIS_DTYPE_INT32) | dtype_bit(TIGRIS_DTYPE_INT64) | dtype_bit(TIGRIS_DTYPE_UINT8);
constexpr uint32_t kI8 = dtype_bit(TIGRIS_DTYPE_INT8);
constexpr uint32_t kAny = kNum | kB | kI8 | dtype_bit(TIGRIS_DTYPE_INT16);

constexpr uint32_t attr(uint8_t kind) { return 1u << kind; }

// A row as written: the names and every column (the runtime keeps all but the names, OpInfo).
struct OpDef {
    uint8_t code = 0;
    const char *id = nullptr;    // the enum's suffix, as docs/operators.md names the op ("DEPTHWISE")
    const char *name = nullptr;  // the name reports print; ONNX's op type where one exists ("Relu")
    Family family = Family::kNone;
    F32 f32 = F32::kNone;
    uint32_t f32_dtypes = 0;  // kernel dtypes the float reference kernel handles
    S8 s8 = S8::kNone;
    S16 s16 = S16::kNone;
    DtypeClass dtypes = DtypeClass::kSpecial;
    bool q8 = false;     // the contract adds a quantized int8 form to F or N data (the doc's `+q8`)
    uint32_t attrs = 0;  // attribute kinds the op may carry (bit = TIGRIS_ATTR_*)
    Rule rule = Rule::kNone;
    uint16_t band = 0;
    uint8_t traits = 0;
    uint8_t accel = 0;
    Lowering lowering = Lowering::kOwn;

    // Row builders, so each row names what it sets.
    constexpr OpDef kernel(Family f, F32 k, uint32_t dt) const
    {
        OpDef o = *this;
        o.family = f, o.f32 = k, o.f32_dtypes = dt;
        return o;
    }
    constexpr OpDef int8(S8 k) const
    {
        OpDef o = *this;
        o.s8 = k;
        return o;
    }
    constexpr OpDef int16(S16 k) const
    {
        OpDef o = *this;
        o.s16 = k;
        return o;
    }
    constexpr OpDef contract(Rule r, DtypeClass d, bool quantized, uint32_t attributes = 0) const
    {
        OpDef o = *this;
        o.rule = r, o.dtypes = d, o.q8 = quantized, o.attrs = attributes;
        return o;
    }
    constexpr OpDef bands(uint16_t b) const
    {
        OpDef o = *this;
        o.band = b;
        return o;
    }
    constexpr OpDef with(uint8_t t) const
    {
        OpDef o = *this;
        o.traits |= t;
        return o;
    }
    constexpr OpDef accelerated(uint8_t a) const
    {
        OpDef o = *this;
        o.accel = a;
        return o;
    }
    constexpr OpDef lowered(Lowering l) const
    {
        OpDef o = *this;
        o.lowering = l;
        return o;
    }
};

constexpr OpDef op(uint8_t code, const char *id, const char *name)
{
    OpDef o{};
    o.code = code, o.id = id, o.name = name;
    return o;
}

// Shorthands for the rows below.
namespace row {
constexpr bool q8 = true, plain = false;  // `plain`: no quantized form beyond the class
constexpr uint32_t kConstOperand = attr(TIGRIS_ATTR_CONSTANT_OPERAND);
constexpr uint32_t kRequantBinary = kConstOperand | attr(TIGRIS_ATTR_BINARY_REQUANT);
constexpr uint32_t kCompare = kConstOperand | attr(TIGRIS_ATTR_COMPARISON_REQUANT);
constexpr uint32_t kAxes = attr(TIGRIS_ATTR_AXES);
constexpr uint32_t kMovement = attr(TIGRIS_ATTR_MOVEMENT);
constexpr uint16_t kUnaryBands = kBandUnary;
constexpr uint16_t kBinaryBands = kBandBinary;
constexpr uint16_t kWindowBands = kBandStripe | kBandHw | kBandChainSpatial;
// TensorFlow Lite Micro's signal library: integer data (unsigned values in int32/int64 storage).
constexpr uint32_t kSignalDtypes = dtype_bit(TIGRIS_DTYPE_INT16) | dtype_bit(TIGRIS_DTYPE_INT32) | dtype_bit(TIGRIS_DTYPE_INT64);
constexpr uint32_t kSignalAttrs = attr(TIGRIS_ATTR_SIGNAL) | attr(TIGRIS_ATTR_CONSTANTS);
}  // namespace row

// clang-format off
inline constexpr OpDef kOpDefs[] = {
    op(TIGRIS_OP_CONV, "CONV", "Conv")
        .kernel(Family::kConv, F32::kConv, kF).int8(S8::kConv).int16(S16::kConv).contract(Rule::kConv, DtypeClass::kF, row::q8)
        .bands(row::kWindowBands | kBandChannelMix).with(kTraitWindow | kTraitFusedAct).accelerated(kAccelCmsisNn | kAccelEspNn),
    op(TIGRIS_OP_DEPTHWISE, "DEPTHWISE", "DepthwiseConv")
        .kernel(Family::kConv, F32::kConv, kF).int8(S8::kDepthwise).int16(S16::kDepthwise).contract(Rule::kConv, DtypeClass::kF, row::q8)
        .bands(row::kWindowBands | kBandChannelSpatial).with(kTraitWindow | kTraitFusedAct).accelerated(kAccelCmsisNn | kAccelEspNn),
    op(TIGRIS_OP_RELU, "RELU", "Relu")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kRelu).contract(Rule::kUnary, DtypeClass::kF, row::q8)
        .bands(row::kUnaryBands | kBandChain).lowered(Lowering::kUnary),
    op(TIGRIS_OP_RELU6, "RELU6", "Relu6")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kRelu6).contract(Rule::kUnary, DtypeClass::kF, row::q8)
        .bands(row::kUnaryBands | kBandChain).lowered(Lowering::kUnary),
    op(TIGRIS_OP_MAX_POOL, "MAX_POOL", "MaxPool")
        .kernel(Family::kPool, F32::kPool, kF).int8(S8::kMaxPool).int16(S16::kMaxPool).contract(Rule::kPool, DtypeClass::kF, row::q8)
        .bands(row::kWindowBands | kBandLine | kBandChannelSpatial).with(kTraitWindow),
    op(TIGRIS_OP_AVG_POOL, "AVG_POOL", "AveragePool")
        .kernel(Family::kPool, F32::kPool, kF).int8(S8::kAvgPool).int16(S16::kAvgPool)
        .contract(Rule::kPool, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_POOL_ROUNDING))
        .bands(row::kWindowBands | kBandLine | kBandChannelSpatial).with(kTraitWindow).accelerated(kAccelCmsisNn | kAccelEspNn),
    op(TIGRIS_OP_ADD, "ADD", "Add")
        .kernel(Family::kBinary, F32::kBinary, kNum).int8(S8::kAdd).int16(S16::kAdd)
        .contract(Rule::kBinary, DtypeClass::kN, row::q8, row::kRequantBinary)
        .bands(row::kBinaryBands | kBandChain).with(kTraitFusedAct).accelerated(kAccelCmsisNn).lowered(Lowering::kBinary),
    op(TIGRIS_OP_MUL, "MUL", "Mul")
        .kernel(Family::kBinary, F32::kBinary, kNum).int8(S8::kMul).int16(S16::kMul)
        .contract(Rule::kBinary, DtypeClass::kN, row::q8, row::kRequantBinary)
        .bands(row::kBinaryBands | kBandChain).accelerated(kAccelCmsisNn | kAccelEspNn).lowered(Lowering::kBinary),
    op(TIGRIS_OP_FULLY_CONN, "FULLY_CONN", "Gemm")
        .kernel(Family::kMatrix, F32::kFullyConnected, kF).int8(S8::kFullyConnected).int16(S16::kFullyConnected)
        .contract(Rule::kFullyConnected, DtypeClass::kF, row::q8)
        .bands(kBandChannelMix).with(kTraitFusedAct).accelerated(kAccelCmsisNn | kAccelEspNn),
    op(TIGRIS_OP_SOFTMAX, "SOFTMAX", "Softmax")
        .kernel(Family::kSoftmax, F32::kSoftmax, kF).int8(S8::kSoftmax).int16(S16::kSoftmax)
        .contract(Rule::kSoftmax, DtypeClass::kF, row::q8, row::kAxes | attr(TIGRIS_ATTR_ALPHA))
        .bands(kBandChannel | kBandAxes | kBandChain),
    op(TIGRIS_OP_CLIP, "CLIP", "Clip")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kClip)
        .contract(Rule::kUnary, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_CLIP_BOUNDS)).bands(row::kUnaryBands),
    op(TIGRIS_OP_SIGMOID, "SIGMOID", "Sigmoid")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kSigmoid).int16(S16::kSigmoid)
        .contract(Rule::kUnary, DtypeClass::kF, row::q8).bands(row::kUnaryBands | kBandChain).lowered(Lowering::kUnary),
    op(TIGRIS_OP_CONCAT, "CONCAT", "Concat")
        .kernel(Family::kMovement, F32::kConcatSplit, kAny).int8(S8::kConcat).int16(S16::kByteMovement)
        .contract(Rule::kConcatSplit, DtypeClass::kA, row::plain, row::kAxes).bands(kBandJoin | kBandAxes | kBandChain),
    op(TIGRIS_OP_PAD, "PAD", "Pad")
        .kernel(Family::kMovement, F32::kPad, kAny).int8(S8::kPad).int16(S16::kPad)
        .contract(Rule::kPad, DtypeClass::kA, row::plain, attr(TIGRIS_ATTR_PADS) | attr(TIGRIS_ATTR_ALPHA)),
    op(TIGRIS_OP_GLOBAL_AVG, "GLOBAL_AVG", "GlobalAveragePool")
        .kernel(Family::kPool, F32::kGlobalPool, kF).int8(S8::kGlobalAvg).int16(S16::kGlobalAvg)
        .contract(Rule::kGlobalPool, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_POOL_ROUNDING))
        .bands(kBandByInput | kBandChannelSpatial).accelerated(kAccelCmsisNn),
    op(TIGRIS_OP_FLATTEN, "FLATTEN", "Flatten")
        .kernel(Family::kMovement, F32::kReshape, kAny).int8(S8::kCopy).int16(S16::kByteMovement)
        .contract(Rule::kReshape, DtypeClass::kA, row::plain).bands(kBandReshape),
    op(TIGRIS_OP_RESHAPE, "RESHAPE", "Reshape")
        .kernel(Family::kMovement, F32::kReshape, kAny).int8(S8::kCopy).int16(S16::kByteMovement)
        .contract(Rule::kReshape, DtypeClass::kA, row::plain).bands(kBandReshape),
    op(TIGRIS_OP_SUB, "SUB", "Sub")
        .kernel(Family::kBinary, F32::kBinary, kNum).int8(S8::kSub).int16(S16::kSub)
        .contract(Rule::kBinary, DtypeClass::kN, row::q8, row::kRequantBinary)
        .bands(row::kBinaryBands | kBandChain).lowered(Lowering::kBinary),
    op(TIGRIS_OP_DIV, "DIV", "Div")
        .kernel(Family::kBinary, F32::kBinary, kNum)
        .contract(Rule::kBinary, DtypeClass::kN, row::plain, row::kConstOperand)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_TANH, "TANH", "Tanh")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kTanh).int16(S16::kTanh).contract(Rule::kUnary, DtypeClass::kF, row::q8)
        .bands(row::kUnaryBands | kBandChain).lowered(Lowering::kUnary),
    op(TIGRIS_OP_LEAKY_RELU, "LEAKY_RELU", "LeakyRelu")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kLeakyRelu).int16(S16::kLeakyRelu)
        .contract(Rule::kUnary, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_ALPHA)).bands(row::kUnaryBands),
    op(TIGRIS_OP_BATCH_NORM, "BATCH_NORM", "BatchNormalization")
        .kernel(Family::kNorm, F32::kNorm, kF).contract(Rule::kNorm, DtypeClass::kF, row::plain, row::kAxes)
        .bands(row::kUnaryBands | kBandAxes),
    op(TIGRIS_OP_INST_NORM, "INST_NORM", "InstanceNormalization")
        .kernel(Family::kNorm, F32::kNorm, kF)
        .contract(Rule::kNorm, DtypeClass::kF, row::plain, row::kAxes | attr(TIGRIS_ATTR_EPSILON)),
    op(TIGRIS_OP_CONV_TRANSPOSE, "CONV_TRANSPOSE", "ConvTranspose")
        .kernel(Family::kConvTranspose, F32::kConvTranspose, kF).int16(S16::kConvTranspose)
        .contract(Rule::kConvTranspose, DtypeClass::kF, row::q8).bands(kBandHw).with(kTraitWindow),
    op(TIGRIS_OP_MATMUL, "MATMUL", "MatMul")
        .kernel(Family::kMatrix, F32::kMatMul, kF).contract(Rule::kMatMul, DtypeClass::kF, row::q8, row::kConstOperand),
    op(TIGRIS_OP_REDUCE_MEAN, "REDUCE_MEAN", "ReduceMean")
        .kernel(Family::kReduce, F32::kReduce, kF).int8(S8::kReduceMean).int16(S16::kReduceMean)
        .contract(Rule::kReduce, DtypeClass::kF, row::q8, row::kAxes | attr(TIGRIS_ATTR_POOL_ROUNDING))
        .bands(kBandByInput),
    op(TIGRIS_OP_SQUEEZE, "SQUEEZE", "Squeeze")
        .kernel(Family::kMovement, F32::kReshape, kAny).int8(S8::kCopy).int16(S16::kByteMovement)
        .contract(Rule::kReshape, DtypeClass::kA, row::plain).bands(kBandReshape),
    op(TIGRIS_OP_UNSQUEEZE, "UNSQUEEZE", "Unsqueeze")
        .kernel(Family::kMovement, F32::kReshape, kAny).int8(S8::kCopy).int16(S16::kByteMovement)
        .contract(Rule::kReshape, DtypeClass::kA, row::plain).bands(kBandReshape),
    op(TIGRIS_OP_TRANSPOSE, "TRANSPOSE", "Transpose")
        .kernel(Family::kMovement, F32::kTranspose, kAny).int8(S8::kTranspose).int16(S16::kByteMovement)
        .contract(Rule::kTranspose, DtypeClass::kA, row::plain, attr(TIGRIS_ATTR_TRANSPOSE_PERM)),
    op(TIGRIS_OP_RESIZE, "RESIZE", "Resize")
        .kernel(Family::kResize, F32::kResize, kAny).int8(S8::kResizeNearest)
        .contract(Rule::kResize, DtypeClass::kA, row::plain, attr(TIGRIS_ATTR_RESIZE_SCALES))
        .bands(kBandStripe | kBandHw | kBandAxes),
    op(TIGRIS_OP_GLOBAL_MAX, "GLOBAL_MAX", "GlobalMaxPool")
        .kernel(Family::kPool, F32::kGlobalPool, kF).int8(S8::kGlobalMax).int16(S16::kGlobalMax)
        .contract(Rule::kGlobalPool, DtypeClass::kF, row::q8).bands(kBandByInput | kBandChannelSpatial),
    op(TIGRIS_OP_CONV1D, "CONV1D", "Conv1D")
        .kernel(Family::kConv, F32::kConv, kF).int8(S8::kConv).int16(S16::kConv).contract(Rule::kConv, DtypeClass::kF, row::q8)
        .bands(kBandLine).with(kTraitWindow | kTraitFusedAct),
    op(TIGRIS_OP_LAYER_NORM, "LAYER_NORM", "LayerNormalization")
        .kernel(Family::kNorm, F32::kNorm, kF)
        .contract(Rule::kNorm, DtypeClass::kF, row::q8, row::kAxes | attr(TIGRIS_ATTR_EPSILON))
        .bands(kBandChannel | kBandAxes | kBandChain),
    op(TIGRIS_OP_ERF, "ERF", "Erf")
        .kernel(Family::kActivation, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands | kBandChain).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SPLIT, "SPLIT", "Split")
        .kernel(Family::kMovement, F32::kConcatSplit, kAny)
        .contract(Rule::kConcatSplit, DtypeClass::kA, row::plain, row::kAxes).bands(kBandJoin | kBandAxes),
    op(TIGRIS_OP_RESIZE_LINEAR, "RESIZE_LINEAR", "ResizeLinear")
        .kernel(Family::kResize, F32::kResize, kF).int8(S8::kResizeBilinear)
        .contract(Rule::kResize, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_RESIZE_SCALES)),
    op(TIGRIS_OP_HARDSWISH, "HARDSWISH", "HardSwish")
        .kernel(Family::kActivation, F32::kUnary, kF).int8(S8::kHardSwish)
        .contract(Rule::kUnary, DtypeClass::kF, row::q8).bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ABS, "ABS", "Abs")
        .kernel(Family::kMath, F32::kUnary, kNum).contract(Rule::kUnary, DtypeClass::kN, row::q8)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_RSQRT, "RSQRT", "Rsqrt")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::q8)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SQUARED_DIFFERENCE, "SQUARED_DIFFERENCE", "SquaredDifference")
        .kernel(Family::kBinary, F32::kBinary, kF)
        .contract(Rule::kBinary, DtypeClass::kF, row::q8, row::kRequantBinary)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_MAXIMUM, "MAXIMUM", "Max")
        .kernel(Family::kBinary, F32::kBinary, kNum).int8(S8::kMaximum)
        .contract(Rule::kBinary, DtypeClass::kN, row::q8, row::kConstOperand)
        .bands(row::kBinaryBands).accelerated(kAccelCmsisNn).lowered(Lowering::kBinary),
    op(TIGRIS_OP_MINIMUM, "MINIMUM", "Min")
        .kernel(Family::kBinary, F32::kBinary, kNum).int8(S8::kMinimum)
        .contract(Rule::kBinary, DtypeClass::kN, row::q8, row::kConstOperand)
        .bands(row::kBinaryBands).accelerated(kAccelCmsisNn).lowered(Lowering::kBinary),
    op(TIGRIS_OP_NEG, "NEG", "Neg")
        .kernel(Family::kMath, F32::kUnary, kNum).contract(Rule::kUnary, DtypeClass::kN, row::q8)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_EXP, "EXP", "Exp")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_LOG, "LOG", "Log")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::q8)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SQRT, "SQRT", "Sqrt")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SQUARE, "SQUARE", "Square")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_FLOOR, "FLOOR", "Floor")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_CEIL, "CEIL", "Ceil")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ROUND, "ROUND", "Round")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SIN, "SIN", "Sin")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_COS, "COS", "Cos")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_FLOOR_DIV, "FLOOR_DIV", "FloorDiv")
        .kernel(Family::kBinary, F32::kBinary, kNum)
        .contract(Rule::kBinary, DtypeClass::kN, row::plain, row::kConstOperand).bands(row::kBinaryBands),
    op(TIGRIS_OP_FLOOR_MOD, "FLOOR_MOD", "FloorMod")
        .kernel(Family::kBinary, F32::kBinary, kNum)
        .contract(Rule::kBinary, DtypeClass::kN, row::plain, row::kConstOperand)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_PRELU, "PRELU", "PRelu")
        .kernel(Family::kBinary, F32::kBinary, kF).contract(Rule::kBinary, DtypeClass::kF, row::q8, row::kConstOperand)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_ELU, "ELU", "Elu")
        .kernel(Family::kActivation, F32::kUnary, kF)
        .contract(Rule::kUnary, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_ALPHA)).bands(row::kUnaryBands),
    op(TIGRIS_OP_LOG_SOFTMAX, "LOG_SOFTMAX", "LogSoftmax")
        .kernel(Family::kSoftmax, F32::kSoftmax, kF)
        .contract(Rule::kSoftmax, DtypeClass::kF, row::q8, row::kAxes | attr(TIGRIS_ATTR_ALPHA))
        .bands(kBandChannel | kBandAxes),
    op(TIGRIS_OP_L2_NORMALIZATION, "L2_NORMALIZATION", "L2Normalization")
        .kernel(Family::kNorm, F32::kNorm, kF)
        .contract(Rule::kNorm, DtypeClass::kF, row::q8, row::kAxes | attr(TIGRIS_ATTR_EPSILON))
        .bands(kBandChannel | kBandAxes),
    op(TIGRIS_OP_L2_POOL, "L2_POOL", "L2Pool")
        .kernel(Family::kPool, F32::kPool, kF)
        .contract(Rule::kPool, DtypeClass::kF, row::plain, attr(TIGRIS_ATTR_POOL_ROUNDING)).with(kTraitWindow),
    op(TIGRIS_OP_REDUCE_MAX, "REDUCE_MAX", "ReduceMax")
        .kernel(Family::kReduce, F32::kReduce, kF).int8(S8::kReduceMax)
        .contract(Rule::kReduce, DtypeClass::kF, row::q8, row::kAxes).bands(kBandByInput),
    op(TIGRIS_OP_REDUCE_MIN, "REDUCE_MIN", "ReduceMin")
        .kernel(Family::kReduce, F32::kReduce, kF).int8(S8::kReduceMin)
        .contract(Rule::kReduce, DtypeClass::kF, row::q8, row::kAxes).bands(kBandByInput),
    op(TIGRIS_OP_REDUCE_SUM, "REDUCE_SUM", "ReduceSum")
        .kernel(Family::kReduce, F32::kReduce, kF).int8(S8::kReduceSum)
        .contract(Rule::kReduce, DtypeClass::kF, row::q8, row::kAxes).bands(kBandByInput),
    op(TIGRIS_OP_CUMSUM, "CUMSUM", "CumSum")
        .kernel(Family::kReduce, F32::kReduce, kNum)
        .contract(Rule::kCumSum, DtypeClass::kN, row::plain, row::kAxes | attr(TIGRIS_ATTR_CUMSUM_OPTIONS)),
    op(TIGRIS_OP_ARG_MAX, "ARG_MAX", "ArgMax")
        .kernel(Family::kReduce, F32::kReduce, kNum | kI8)
        .contract(Rule::kArg, DtypeClass::kF, row::q8, row::kAxes | row::kMovement),
    op(TIGRIS_OP_ARG_MIN, "ARG_MIN", "ArgMin")
        .kernel(Family::kReduce, F32::kReduce, kNum | kI8)
        .contract(Rule::kArg, DtypeClass::kF, row::q8, row::kAxes | row::kMovement),
    op(TIGRIS_OP_GATHER, "GATHER", "Gather")
        .kernel(Family::kMovement, F32::kGather, kAny)
        .contract(Rule::kGather, DtypeClass::kA, row::plain, row::kMovement)
        .bands(kBandJoin | kBandAxes | kBandChain),
    op(TIGRIS_OP_GATHER_ND, "GATHER_ND", "GatherND")
        .kernel(Family::kMovement, F32::kGather, kAny)
        .contract(Rule::kGatherNd, DtypeClass::kA, row::plain, row::kMovement),
    op(TIGRIS_OP_STRIDED_SLICE, "STRIDED_SLICE", "StridedSlice")
        .kernel(Family::kMovement, F32::kSlice, kAny).int8(S8::kStridedSlice).int16(S16::kByteMovement)
        .contract(Rule::kStridedSlice, DtypeClass::kA, row::plain, row::kMovement)
        .bands(kBandJoin | kBandAxes | kBandChain),
    op(TIGRIS_OP_MIRROR_PAD, "MIRROR_PAD", "MirrorPad")
        .kernel(Family::kMovement, F32::kPad, kAny).contract(Rule::kMirrorPad, DtypeClass::kA, row::plain, row::kMovement),
    op(TIGRIS_OP_REVERSE_V2, "REVERSE_V2", "ReverseV2")
        .kernel(Family::kMovement, F32::kSlice, kAny).contract(Rule::kReverse, DtypeClass::kA, row::plain, row::kMovement),
    op(TIGRIS_OP_EMBEDDING_LOOKUP, "EMBEDDING_LOOKUP", "EmbeddingLookup")
        .kernel(Family::kMovement, F32::kGather, kAny)
        .contract(Rule::kEmbedding, DtypeClass::kA, row::plain, row::kMovement),
    op(TIGRIS_OP_DYNAMIC_UPDATE_SLICE, "DYNAMIC_UPDATE_SLICE", "DynamicUpdateSlice")
        .kernel(Family::kMovement, F32::kSlice, kAny)
        .contract(Rule::kDynamicUpdateSlice, DtypeClass::kA, row::plain, row::kMovement),
    op(TIGRIS_OP_EQUAL, "EQUAL", "Equal")
        .kernel(Family::kLogic, F32::kBinary, kNum | kB).contract(Rule::kBinary, DtypeClass::kSpecial, row::q8, row::kCompare)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_LESS, "LESS", "Less")
        .kernel(Family::kLogic, F32::kBinary, kNum).contract(Rule::kBinary, DtypeClass::kSpecial, row::q8, row::kCompare)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_LESS_EQUAL, "LESS_EQUAL", "LessOrEqual")
        .kernel(Family::kLogic, F32::kBinary, kNum).contract(Rule::kBinary, DtypeClass::kSpecial, row::q8, row::kCompare)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_GREATER, "GREATER", "Greater")
        .kernel(Family::kLogic, F32::kBinary, kNum).contract(Rule::kBinary, DtypeClass::kSpecial, row::q8, row::kCompare)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_GREATER_EQUAL, "GREATER_EQUAL", "GreaterOrEqual")
        .kernel(Family::kLogic, F32::kBinary, kNum).contract(Rule::kBinary, DtypeClass::kSpecial, row::q8, row::kCompare)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_LOGICAL_AND, "LOGICAL_AND", "And")
        .kernel(Family::kLogic, F32::kBinary, kB).contract(Rule::kBinary, DtypeClass::kB, row::plain, row::kConstOperand)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_LOGICAL_OR, "LOGICAL_OR", "Or")
        .kernel(Family::kLogic, F32::kBinary, kB).contract(Rule::kBinary, DtypeClass::kB, row::plain, row::kConstOperand)
        .bands(row::kBinaryBands).lowered(Lowering::kBinary),
    op(TIGRIS_OP_LOGICAL_NOT, "LOGICAL_NOT", "Not")
        .kernel(Family::kLogic, F32::kUnary, kB).contract(Rule::kUnary, DtypeClass::kB, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SELECT_V2, "SELECT_V2", "Where")
        .kernel(Family::kLogic, F32::kBinary, kAny)
        .contract(Rule::kBinary, DtypeClass::kSpecial, row::plain, row::kConstOperand).bands(row::kBinaryBands),
    op(TIGRIS_OP_CAST, "CAST", "Cast")
        .kernel(Family::kCast, F32::kCast, kAny).int8(S8::kQuantizeCast).int16(S16::kQuantizeCast)
        .contract(Rule::kUnary, DtypeClass::kSpecial, row::plain).bands(row::kUnaryBands).with(kTraitBoundary),
    op(TIGRIS_OP_ADD_N, "ADD_N", "Sum")
        .kernel(Family::kBinary, F32::kAddN, kNum).contract(Rule::kAddN, DtypeClass::kN, row::plain)
        .bands(row::kBinaryBands),
    op(TIGRIS_OP_REDUCE_ALL, "REDUCE_ALL", "ReduceAll")
        .kernel(Family::kReduce, F32::kReduce, kB).contract(Rule::kReduce, DtypeClass::kB, row::plain, row::kAxes),
    op(TIGRIS_OP_SVDF, "SVDF", "Svdf")
        .kernel(Family::kSequence, F32::kSvdf, kF).int8(S8::kSvdf)
        .contract(Rule::kSvdf, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_CONSTANTS) | attr(TIGRIS_ATTR_SVDF))
        .with(kTraitFusedAct),
    op(TIGRIS_OP_LSTM, "LSTM", "Lstm")
        .kernel(Family::kSequence, F32::kLstm, kF).int8(S8::kLstm).int16(S16::kLstm)
        .contract(Rule::kLstm, DtypeClass::kF, row::q8, attr(TIGRIS_ATTR_CONSTANTS) | attr(TIGRIS_ATTR_LSTM)),
    op(TIGRIS_OP_IF, "IF", "If")
        .kernel(Family::kNone, F32::kNone, kAny)
        .contract(Rule::kControlFlow, DtypeClass::kSpecial, row::plain, attr(TIGRIS_ATTR_SUBGRAPHS))
        .with(kTraitControl | kTraitBoundary),
    op(TIGRIS_OP_WHILE, "WHILE", "While")
        .kernel(Family::kNone, F32::kNone, kAny)
        .contract(Rule::kControlFlow, DtypeClass::kSpecial, row::plain, attr(TIGRIS_ATTR_SUBGRAPHS))
        .with(kTraitControl | kTraitBoundary),
    op(TIGRIS_OP_DETECTION_POSTPROCESS, "DETECTION_POSTPROCESS", "DetectionPostProcess")
        .kernel(Family::kDetection, F32::kDetection, kF | kI8)
        .contract(Rule::kDetection, DtypeClass::kF, row::plain, attr(TIGRIS_ATTR_DETECTION)).with(kTraitBoundary),
    op(TIGRIS_OP_ASIN, "ASIN", "Asin")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ACOS, "ACOS", "Acos")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ATAN, "ATAN", "Atan")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SINH, "SINH", "Sinh")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_COSH, "COSH", "Cosh")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ASINH, "ASINH", "Asinh")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ACOSH, "ACOSH", "Acosh")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_ATANH, "ATANH", "Atanh")
        .kernel(Family::kMath, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SILU, "SILU", "Silu")
        .kernel(Family::kActivation, F32::kUnary, kF).contract(Rule::kUnary, DtypeClass::kF, row::plain)
        .bands(row::kUnaryBands | kBandChain).lowered(Lowering::kUnary),
    op(TIGRIS_OP_SIGNAL_WINDOW, "SIGNAL_WINDOW", "SignalWindow")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_FFT_AUTO_SCALE, "SIGNAL_FFT_AUTO_SCALE", "SignalFftAutoScale")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_RFFT, "SIGNAL_RFFT", "SignalRfft")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_ENERGY, "SIGNAL_ENERGY", "SignalEnergy")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_FILTER_BANK, "SIGNAL_FILTER_BANK", "SignalFilterBank")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_FILTER_BANK_SQRT, "SIGNAL_FILTER_BANK_SQRT", "SignalFilterBankSquareRoot")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_SPECTRAL_SUBTRACTION, "SIGNAL_SPECTRAL_SUBTRACTION", "SignalFilterBankSpectralSubtraction")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_PCAN, "SIGNAL_PCAN", "SignalPCAN")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    op(TIGRIS_OP_SIGNAL_FILTER_BANK_LOG, "SIGNAL_FILTER_BANK_LOG", "SignalFilterBankLog")
        .kernel(Family::kSignal, F32::kSignal, row::kSignalDtypes)
        .contract(Rule::kSignal, DtypeClass::kSpecial, row::plain, row::kSignalAttrs),
    // int8 only: y = table[x] (256 int8 entries, the weight), an elementwise region folded by
    // the compiler (passes/int8_tables.cpp).
    op(TIGRIS_OP_TABLE, "TABLE", "Table")
        .kernel(Family::kActivation, F32::kNone, 0).int8(S8::kTable)
        .contract(Rule::kUnary, DtypeClass::kSpecial, row::q8).bands(row::kUnaryBands | kBandChain),
    // No input: writes its weight (a graph output the compiler folded to a constant) into
    // its output, byte for byte; it may start a float32 section of an int8 plan.
    op(TIGRIS_OP_CONSTANT, "CONSTANT", "Constant")
        .kernel(Family::kMovement, F32::kConstant, kAny).contract(Rule::kConstant, DtypeClass::kA, row::plain)
        .with(kTraitBoundary),
};
// clang-format on

constexpr uint32_t kOpCount = sizeof(kOpDefs) / sizeof(kOpDefs[0]);

constexpr bool rows_in_opcode_order()
{
    for (uint32_t i = 0; i < kOpCount; ++i)
        if (kOpDefs[i].code != i + 1u || kOpDefs[i].id == nullptr || kOpDefs[i].name == nullptr) return false;
    return true;
}
static_assert(rows_in_opcode_order(), "kOpDefs: one row per opcode, from 1, in opcode order");
static_assert(kOpCount == TIGRIS_OP_TYPE_MAX, "kOpDefs: a row for every opcode up to TIGRIS_OP_TYPE_MAX");

// What the runtime reads of a row: everything but the names, so the device's copy is constant
// data without pointers (flash, no relocations). 20 bytes a row: the kernel dtypes' bits (dtype
// codes up to 15) fit 16 bits (kOpDefs_fit_rows checks it).
struct OpInfo {
    uint32_t attrs;
    uint16_t f32_dtypes;
    uint16_t band;
    uint8_t code;
    Family family;
    F32 f32;
    S8 s8;
    S16 s16;
    DtypeClass dtypes;
    bool q8;
    Rule rule;
    uint8_t traits;
    uint8_t accel;
    Lowering lowering;
};

struct OpInfoTable {
    OpInfo rows[kOpCount];
};

constexpr OpInfoTable runtime_rows()
{
    OpInfoTable t{};
    for (uint32_t i = 0; i < kOpCount; ++i) {
        const OpDef &d = kOpDefs[i];
        t.rows[i] = OpInfo{d.attrs, (uint16_t)d.f32_dtypes, d.band, d.code,   d.family, d.f32,   d.s8,
                           d.s16,   d.dtypes,               d.q8,   d.rule,   d.traits, d.accel, d.lowering};
    }
    return t;
}
constexpr bool kOpDefs_fit_rows()
{
    for (uint32_t i = 0; i < kOpCount; ++i)
        if (kOpDefs[i].f32_dtypes > 0xFFFFu) return false;
    return true;
}
static_assert(kOpDefs_fit_rows(), "OpInfo::f32_dtypes: a dtype code above 15");
static_assert(sizeof(OpInfo) == 20, "OpInfo: 20 bytes a row");
inline constexpr OpInfoTable kOpTable = runtime_rows();

// Whether this build keeps a row's kernels and rule: its family (TIGRIS_NO_KERNEL_<FAMILY>) and
// the op itself (TIGRIS_ONLY_OPS). False for the empty row (code 0) of a left-out op.
constexpr bool row_built(const OpInfo &r) { return r.code != 0 && family_built(r.family) && op_kept(r.code); }

// Whether this build keeps opcode `code` (a constant: `if constexpr` leaves out what only it needs).
constexpr bool op_built(uint8_t code) { return code >= 1u && code <= kOpCount && row_built(kOpTable.rows[code - 1u]); }

// The rows the device keeps. A build that leaves ops out stores only their rows, reached
// through one index byte per opcode; every left-out opcode maps to row 0, empty (code 0), which
// the loader refuses with KERNEL_DISABLED at step 18 (so no later step reads it). The constexpr
// predicates (kernels/kernel_set.h) still read the whole kOpTable, which then takes no flash.
constexpr uint32_t built_row_count()
{
    uint32_t n = 0;
    for (const OpInfo &r : kOpTable.rows) n += row_built(r) ? 1u : 0u;
    return n;
}
constexpr bool kEveryRowBuilt = built_row_count() == kOpCount;
struct BuiltRows {
    uint8_t index[kOpCount];  // opcode - 1 -> row
    OpInfo rows[built_row_count() + 1u];
};
constexpr BuiltRows built_rows()
{
    BuiltRows t{};
    uint8_t n = 1;  // rows[0]: the empty row
    for (uint32_t i = 0; i < kOpCount; ++i) {
        if (!row_built(kOpTable.rows[i])) continue;
        t.index[i] = n;
        t.rows[n++] = kOpTable.rows[i];
    }
    return t;
}
static_assert(built_row_count() < 255u, "BuiltRows: one index byte per opcode");
inline constexpr BuiltRows kBuiltRows = built_rows();

// The row of an opcode, or nullptr (0, 255 and undefined codes); in a build that leaves the
// op out, the empty row.
constexpr const OpInfo *op_info(uint8_t code)
{
    if (code < 1u || code > kOpCount) return nullptr;
    if constexpr (kEveryRowBuilt) return &kOpTable.rows[code - 1u];
    return &kBuiltRows.rows[kBuiltRows.index[code - 1u]];
}

// The whole row, names included (host code and tests).
constexpr const OpDef *op_def(uint8_t code) { return code >= 1u && code <= kOpCount ? &kOpDefs[code - 1u] : nullptr; }

constexpr bool has_band(uint8_t code, uint16_t cls)
{
    const OpInfo *r = op_info(code);
    return r != nullptr && (r->band & cls) != 0;
}

constexpr bool has_trait(uint8_t code, uint8_t trait)
{
    const OpInfo *r = op_info(code);
    return r != nullptr && (r->traits & trait) != 0;
}

}  // namespace ops
}  // namespace tigris_rt
