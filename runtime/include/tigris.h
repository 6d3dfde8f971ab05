/*
 * TiGrIS runtime — core types of the .tgrs plan format (schema 11).
 *
 * This header is the single definition of every on-disk record: the plan
 * writer of the compiler and the runtime loader both use these structs.
 * Records are packed and little-endian; docs/plan-format.md describes them
 * byte by byte. Plain C99; C++ includes it unchanged.
 */
#ifndef TIGRIS_H
#define TIGRIS_H

#include <stddef.h>
#include <stdint.h>

#include "tigris_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ---------------------------------------------------------- */

#define TIGRIS_RUNTIME_VERSION_MAJOR 0
#define TIGRIS_RUNTIME_VERSION_MINOR 13
#define TIGRIS_RUNTIME_VERSION_PATCH 0

#define TIGRIS_SCHEMA_VERSION     11u
#define TIGRIS_SCHEMA_VERSION_MIN 4u

#define TIGRIS_MAGIC 0x53524754u /* "TGRS" read as a little-endian u32 */

#if defined(__cplusplus)
#  define TIGRIS_STATIC_ASSERT(cond, name) static_assert(cond, #  name)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#  define TIGRIS_STATIC_ASSERT(cond, name) _Static_assert(cond, #  name)
#else
#  define TIGRIS_STATIC_ASSERT(cond, name) typedef char tigris_static_assert_##name[(cond) ? 1 : -1]
#endif

/* ---- Enumerations ------------------------------------------------------ */

/* Section ids of the section directory (0 ends the directory). */
enum {
    TIGRIS_SEC_END = 0,
    TIGRIS_SEC_TENSORS = 1,
    TIGRIS_SEC_OPS = 2,
    TIGRIS_SEC_STAGES = 3,
    TIGRIS_SEC_TILE_PLANS = 4,
    TIGRIS_SEC_INDEX_POOL = 5,
    TIGRIS_SEC_SHAPE_POOL = 6,
    TIGRIS_SEC_STRINGS = 7,
    TIGRIS_SEC_WEIGHTS = 8,
    TIGRIS_SEC_QUANT_PARAMS = 9,
    TIGRIS_SEC_WEIGHT_BLOCKS = 10,
    TIGRIS_SEC_OP_ATTRIBUTES = 11,
    TIGRIS_SEC_STATE = 12,
    TIGRIS_SEC_SUBGRAPHS = 13,
    TIGRIS_SEC_MEMORY = 14,
    TIGRIS_SEC_COUNT = 15 /* one past the last id */
};

/* Dtypes: ONNX TensorProto.DataType codes. */
#define TIGRIS_DTYPE_FLOAT32 1
#define TIGRIS_DTYPE_UINT8   2
#define TIGRIS_DTYPE_INT8    3
#define TIGRIS_DTYPE_INT16   5
#define TIGRIS_DTYPE_INT32   6
#define TIGRIS_DTYPE_INT64   7
#define TIGRIS_DTYPE_BOOL    9

/* Tensor flags. */
#define TIGRIS_TENSOR_CONSTANT     0x01u
#define TIGRIS_TENSOR_MODEL_INPUT  0x02u
#define TIGRIS_TENSOR_MODEL_OUTPUT 0x04u
#define TIGRIS_TENSOR_LINEAR       0x08u /* axes stored in the model's own order (v7+) */
#define TIGRIS_TENSOR_STATE        0x10u /* variable kept across runs (v10+) */
/* Boundary tensors only (v7+, not with LINEAR): the caller's arrays are in the stored
 * (channels-last) order, as a TFLite model declares them; callers do not reorder axes. */
#define TIGRIS_TENSOR_CALLER_ORDER 0x20u
#define TIGRIS_TENSOR_FLAGS_KNOWN  0x3Fu

/* Header flags. */
#define TIGRIS_FLAG_XIP 0x1u

/* Sentinel for "none" in u16 index fields. */
#define TIGRIS_NONE 0xFFFFu

/* Fused activations. */
#define TIGRIS_ACT_NONE  0
#define TIGRIS_ACT_RELU  1
#define TIGRIS_ACT_RELU6 2

/* Weight compression. */
#define TIGRIS_COMPRESSION_NONE 0
#define TIGRIS_COMPRESSION_LZ4  1

/* Stage flags (chain head). */
#define TIGRIS_STAGE_LINE_BUFFERED 0x1u

/* Tile record axes and flags. */
#define TIGRIS_TILE_AXIS_NONE       0
#define TIGRIS_TILE_AXIS_HEIGHT     1 /* height (rank 4) or length (rank 3) */
#define TIGRIS_TILE_AXIS_WIDTH      2 /* reserved, refused */
#define TIGRIS_TILE_AXIS_HW         3 /* 2-D tiles */
#define TIGRIS_TILE_BAND_ON_COLUMNS 0x1u

/* How the executor bands a standalone stage (low nibble of tile facts `band`). */
typedef enum {
    TIGRIS_BAND_KIND_NONE = 0,
    TIGRIS_BAND_KIND_RESHAPE = 1,
    TIGRIS_BAND_KIND_LEADING = 2,
    TIGRIS_BAND_KIND_ROWS = 3,
    TIGRIS_BAND_KIND_TRANSPOSE = 4,
    TIGRIS_BAND_KIND_BY_INPUT = 5,
    TIGRIS_BAND_KIND_HW = 6,
    TIGRIS_BAND_KIND_STRIPE = 7,
    TIGRIS_BAND_KIND_CHANNELS = 8, /* rows x channels (float32 or int8); modes TIGRIS_CHANNELS_MODE_* */
    TIGRIS_BAND_KIND_CONCAT = 9    /* a Concat banded along its own axis */
} tigris_band_kind_t;

/* Leading band modes (high nibble of `band`). */
#define TIGRIS_LEADING_MODE_ROWS  0 /* bands run along the rows of the leading axis */
#define TIGRIS_LEADING_MODE_BATCH 1 /* the leading axes are batch-like blocks */

/* Channel band modes (high nibble of `band`, kind CHANNELS). */
#define TIGRIS_CHANNELS_MODE_SEPARABLE 0 /* every op keeps each channel to itself */
#define TIGRIS_CHANNELS_MODE_OUTPUT    1 /* one Conv (one group) writes output-channel bands from every input channel */
#define TIGRIS_CHANNELS_MODE_INPUT     2 /* one FullyConnected or Conv sums input-channel bands (partial sums) */
/* The float32 Conv sums input channels in aligned blocks of this many (taps inside a block):
 * a Conv's input-channel band (mode INPUT, KxK form) is a multiple of it wide or holds every channel. */
#define TIGRIS_CONV_CHANNEL_BLOCK      4

/* Concat band modes (high nibble of `band`, kind CONCAT). */
#define TIGRIS_CONCAT_MODE_UNITS  0 /* bands of units of the concat axis, every block of the axes before it */
#define TIGRIS_CONCAT_MODE_BLOCKS 1 /* bands of units x tile_width blocks of the axes before it (pixel blocks) */

/* By-input band modes (high nibble of `band`, kind BY_INPUT). */
#define TIGRIS_BY_INPUT_MODE_ROWS 0 /* bands of input rows of axis 1, every row whole */
#define TIGRIS_BY_INPUT_MODE_FLAT 1 /* bands of the input's elements in memory order (any axes) */

#define TIGRIS_TILE_BAND_KIND(b)     ((uint8_t)((b)&0x0Fu))
#define TIGRIS_TILE_BAND_MODE(b)     ((uint8_t)(((b) >> 4) & 0x0Fu))
#define TIGRIS_TILE_BAND(kind, mode) ((uint8_t)(((kind)&0x0Fu) | (((mode)&0x0Fu) << 4)))

/* Operator attribute kinds (OP_ATTRIBUTES section). */
typedef enum {
    TIGRIS_ATTR_TRANSPOSE_PERM = 1,
    TIGRIS_ATTR_EPSILON = 2,
    TIGRIS_ATTR_ALPHA = 3,
    TIGRIS_ATTR_CLIP_BOUNDS = 4,
    TIGRIS_ATTR_PADS = 5,
    TIGRIS_ATTR_AXES = 6,
    TIGRIS_ATTR_BINARY_REQUANT = 7,
    TIGRIS_ATTR_POOL_ROUNDING = 8,
    TIGRIS_ATTR_CONSTANT_OPERAND = 9,
    TIGRIS_ATTR_RESIZE_SCALES = 10,
    TIGRIS_ATTR_CUMSUM_OPTIONS = 11,
    TIGRIS_ATTR_MOVEMENT = 12,
    TIGRIS_ATTR_COMPARISON_REQUANT = 13,
    TIGRIS_ATTR_CONSTANTS = 14,
    TIGRIS_ATTR_SVDF = 15,
    TIGRIS_ATTR_LSTM = 16,
    TIGRIS_ATTR_SUBGRAPHS = 17,
    TIGRIS_ATTR_DETECTION = 18,
    TIGRIS_ATTR_SIGNAL = 19,
    TIGRIS_ATTR_KIND_COUNT = 20 /* one past the last kind */
} tigris_attr_kind_t;

/* Operator types (wire values). */
typedef enum {
    TIGRIS_OP_CONV = 1,
    TIGRIS_OP_DEPTHWISE = 2,
    TIGRIS_OP_RELU = 3,
    TIGRIS_OP_RELU6 = 4,
    TIGRIS_OP_MAX_POOL = 5,
    TIGRIS_OP_AVG_POOL = 6,
    TIGRIS_OP_ADD = 7,
    TIGRIS_OP_MUL = 8,
    TIGRIS_OP_FULLY_CONN = 9,
    TIGRIS_OP_SOFTMAX = 10,
    TIGRIS_OP_CLIP = 11,
    TIGRIS_OP_SIGMOID = 12,
    TIGRIS_OP_CONCAT = 13,
    TIGRIS_OP_PAD = 14,
    TIGRIS_OP_GLOBAL_AVG = 15,
    TIGRIS_OP_FLATTEN = 16,
    TIGRIS_OP_RESHAPE = 17,
    TIGRIS_OP_SUB = 18,
    TIGRIS_OP_DIV = 19,
    TIGRIS_OP_TANH = 20,
    TIGRIS_OP_LEAKY_RELU = 21,
    TIGRIS_OP_BATCH_NORM = 22,
    TIGRIS_OP_INST_NORM = 23,
    TIGRIS_OP_CONV_TRANSPOSE = 24,
    TIGRIS_OP_MATMUL = 25,
    TIGRIS_OP_REDUCE_MEAN = 26,
    TIGRIS_OP_SQUEEZE = 27,
    TIGRIS_OP_UNSQUEEZE = 28,
    TIGRIS_OP_TRANSPOSE = 29,
    TIGRIS_OP_RESIZE = 30,
    TIGRIS_OP_GLOBAL_MAX = 31,
    TIGRIS_OP_CONV1D = 32,
    TIGRIS_OP_LAYER_NORM = 33,
    TIGRIS_OP_ERF = 34,
    TIGRIS_OP_SPLIT = 35,
    TIGRIS_OP_RESIZE_LINEAR = 36,
    TIGRIS_OP_HARDSWISH = 37,
    TIGRIS_OP_ABS = 38,
    TIGRIS_OP_RSQRT = 39,
    TIGRIS_OP_SQUARED_DIFFERENCE = 40,
    TIGRIS_OP_MAXIMUM = 41,
    TIGRIS_OP_MINIMUM = 42,
    TIGRIS_OP_NEG = 43,
    TIGRIS_OP_EXP = 44,
    TIGRIS_OP_LOG = 45,
    TIGRIS_OP_SQRT = 46,
    TIGRIS_OP_SQUARE = 47,
    TIGRIS_OP_FLOOR = 48,
    TIGRIS_OP_CEIL = 49,
    TIGRIS_OP_ROUND = 50,
    TIGRIS_OP_SIN = 51,
    TIGRIS_OP_COS = 52,
    TIGRIS_OP_FLOOR_DIV = 53,
    TIGRIS_OP_FLOOR_MOD = 54,
    TIGRIS_OP_PRELU = 55,
    TIGRIS_OP_ELU = 56,
    TIGRIS_OP_LOG_SOFTMAX = 57,
    TIGRIS_OP_L2_NORMALIZATION = 58,
    TIGRIS_OP_L2_POOL = 59,
    TIGRIS_OP_REDUCE_MAX = 60,
    TIGRIS_OP_REDUCE_MIN = 61,
    TIGRIS_OP_REDUCE_SUM = 62,
    TIGRIS_OP_CUMSUM = 63,
    TIGRIS_OP_ARG_MAX = 64,
    TIGRIS_OP_ARG_MIN = 65,
    TIGRIS_OP_GATHER = 66,
    TIGRIS_OP_GATHER_ND = 67,
    TIGRIS_OP_STRIDED_SLICE = 68,
    TIGRIS_OP_MIRROR_PAD = 69,
    TIGRIS_OP_REVERSE_V2 = 70,
    TIGRIS_OP_EMBEDDING_LOOKUP = 71,
    TIGRIS_OP_DYNAMIC_UPDATE_SLICE = 72,
    TIGRIS_OP_EQUAL = 73,
    TIGRIS_OP_LESS = 74,
    TIGRIS_OP_LESS_EQUAL = 75,
    TIGRIS_OP_GREATER = 76,
    TIGRIS_OP_GREATER_EQUAL = 77,
    TIGRIS_OP_LOGICAL_AND = 78,
    TIGRIS_OP_LOGICAL_OR = 79,
    TIGRIS_OP_LOGICAL_NOT = 80,
    TIGRIS_OP_SELECT_V2 = 81,
    TIGRIS_OP_CAST = 82,
    TIGRIS_OP_ADD_N = 83,
    TIGRIS_OP_REDUCE_ALL = 84,
    TIGRIS_OP_SVDF = 85,
    TIGRIS_OP_LSTM = 86,
    TIGRIS_OP_IF = 87,
    TIGRIS_OP_WHILE = 88,
    TIGRIS_OP_DETECTION_POSTPROCESS = 89,
    TIGRIS_OP_ASIN = 90,
    TIGRIS_OP_ACOS = 91,
    TIGRIS_OP_ATAN = 92,
    TIGRIS_OP_SINH = 93,
    TIGRIS_OP_COSH = 94,
    TIGRIS_OP_ASINH = 95,
    TIGRIS_OP_ACOSH = 96,
    TIGRIS_OP_ATANH = 97,
    TIGRIS_OP_SILU = 98,
    TIGRIS_OP_SIGNAL_WINDOW = 99,
    TIGRIS_OP_SIGNAL_FFT_AUTO_SCALE = 100,
    TIGRIS_OP_SIGNAL_RFFT = 101,
    TIGRIS_OP_SIGNAL_ENERGY = 102,
    TIGRIS_OP_SIGNAL_FILTER_BANK = 103,
    TIGRIS_OP_SIGNAL_FILTER_BANK_SQRT = 104,
    TIGRIS_OP_SIGNAL_SPECTRAL_SUBTRACTION = 105,
    TIGRIS_OP_SIGNAL_PCAN = 106,
    TIGRIS_OP_SIGNAL_FILTER_BANK_LOG = 107,
    TIGRIS_OP_TABLE = 108,
    TIGRIS_OP_CONSTANT = 109,
    TIGRIS_OP_UNKNOWN = 255
} tigris_op_type_t;

#define TIGRIS_OP_TYPE_MAX 109 /* highest defined opcode */

/* ---- Error codes (loader and model interface) -------------------------- */

typedef enum {
    TIGRIS_OK = 0,
    TIGRIS_ERR_NULL = -1,
    TIGRIS_ERR_TOO_SMALL = -2,
    TIGRIS_ERR_BAD_MAGIC = -3,
    TIGRIS_ERR_BAD_VERSION = -4,
    TIGRIS_ERR_BAD_SIZE = -5,
    TIGRIS_ERR_BAD_SECTION = -6,
    TIGRIS_ERR_MISSING_SEC = -7,
    TIGRIS_ERR_ENDIAN = -8,
    TIGRIS_ERR_PLAN_LIMITS = -9,
    TIGRIS_ERR_BAD_TENSOR = -10,
    TIGRIS_ERR_BAD_OPERATOR = -11,
    TIGRIS_ERR_BAD_INTERFACE = -12,
    TIGRIS_ERR_KERNEL_DISABLED = -13,
    TIGRIS_ERR_MEM = -14,
    TIGRIS_ERR_TENSOR_SLOTS = -15,
    TIGRIS_ERR_TILE_FACTS = -16,
    TIGRIS_ERR_CHAIN_BAND = -17,
    TIGRIS_ERR_TILE_BAND = -18,
    TIGRIS_ERR_FEATURE_DISABLED = -19
} tigris_error_t;

const char *tigris_error_str(tigris_error_t err);

/* ---- On-disk records (packed, little-endian) ---------------------------- */

#if defined(_MSC_VER) || defined(__GNUC__) || defined(__clang__)
#  pragma pack(push, 1)
#endif

typedef struct {
    uint32_t magic;           /* TIGRIS_MAGIC */
    uint32_t version;         /* plan schema */
    uint32_t file_size;       /* equals the buffer length */
    uint32_t section_dir_off; /* absolute offset of the section directory */
    uint16_t num_tensors;
    uint16_t num_ops;
    uint16_t num_stages;
    uint16_t num_tile_plans;
    uint32_t budget;         /* fast-memory budget the plan was compiled for */
    uint32_t peak;           /* unpartitioned activation peak (informational) */
    uint32_t model_name_str; /* string-table offset */
    uint16_t model_io_off;   /* index-pool offset: inputs, then outputs */
    uint8_t num_model_inputs;
    uint8_t num_model_outputs;
    uint16_t num_weights;
    uint16_t num_quant_params;
    uint32_t flags; /* TIGRIS_FLAG_* */
} tigris_file_header_t;

typedef struct {
    uint32_t type;   /* TIGRIS_SEC_* */
    uint32_t offset; /* absolute file offset */
} tigris_section_entry_t;

typedef struct {
    uint32_t name_str;
    uint32_t size_bytes; /* product(shape) * element size */
    uint16_t shape_off;  /* shape-pool element index */
    uint8_t ndim;
    uint8_t dtype;            /* TIGRIS_DTYPE_* */
    uint8_t flags;            /* TIGRIS_TENSOR_* */
    uint16_t quant_param_idx; /* TIGRIS_NONE = unquantized */
    uint8_t iface_dtype;      /* v6+: dtype declared at the model boundary, 0 = dtype */
} tigris_tensor_t;

typedef struct {
    uint8_t kernel_h;
    uint8_t kernel_w;
    uint8_t stride_h; /* Resize (nearest): integer upscale factor */
    uint8_t stride_w;
    uint16_t pad_top;
    uint16_t pad_bottom;
    uint16_t pad_left;
    uint16_t pad_right;
    uint16_t dilation_h; /* 0 reads as 1 */
    uint16_t dilation_w;
    uint16_t group;
} tigris_spatial_t;

typedef struct {
    uint32_t name_str;
    uint8_t op_type; /* tigris_op_type_t */
    uint8_t num_inputs;
    uint8_t num_outputs;
    uint8_t stage;       /* low byte of the owning stage index */
    uint16_t inputs_off; /* index-pool offset */
    uint16_t outputs_off;
    tigris_spatial_t spatial;
    uint16_t weight_idx; /* TIGRIS_NONE = none */
    uint16_t bias_idx;
    uint8_t fused_act; /* TIGRIS_ACT_* */
    int8_t act_min;    /* int8 clamp */
    int8_t act_max;
    uint8_t reserved;
} tigris_op_t;

typedef struct {
    uint32_t peak_bytes; /* bytes the stage holds at most (compiler) */
    uint16_t ops_off;
    uint16_t ops_count;
    uint16_t inputs_off;
    uint16_t inputs_count;
    uint16_t outputs_off;
    uint16_t outputs_count;
    uint16_t tile_plan_idx; /* TIGRIS_NONE = untiled */
    uint16_t reserved;
    uint16_t chain_id;     /* head stage index, TIGRIS_NONE = standalone */
    uint16_t chain_len;    /* 0, or >= 2 in a chain */
    uint16_t chain_tile_h; /* head only: output rows per tile of the last stage */
    uint16_t flags;        /* head only: TIGRIS_STAGE_LINE_BUFFERED */
} tigris_stage_t;

/* Tile record of schemas 2..9. */
typedef struct {
    uint8_t tileable;
    uint8_t axis;         /* TIGRIS_TILE_AXIS_* */
    uint16_t tile_height; /* output rows (or length) per band */
    uint16_t num_tiles;
    uint16_t halo;
    uint16_t receptive_field;
    uint16_t original_height;
    uint32_t tiled_peak_bytes;
    uint32_t overhead_bytes; /* recomputation estimate */
    uint16_t tile_width;     /* 2-D tiles only */
    uint16_t flags;          /* TIGRIS_TILE_BAND_ON_COLUMNS */
} tigris_tile_plan_t;

/* Scheduling choices (schema 10 record; the first half of a schema 11 record). */
typedef struct {
    uint8_t tileable;
    uint8_t axis;
    uint16_t tile_height;
    uint16_t num_tiles;
    uint16_t halo;
    uint16_t receptive_field;
    uint16_t original_height;
    uint32_t tiled_peak_bytes;
    uint32_t overhead_bytes;
    uint16_t tile_width;
    uint16_t flags;
    uint32_t tile_extent_wide; /* tile_height without the u16 limit */
    uint32_t reserved;
} tigris_tile_plan_v10_t;

/* What a tile record states about the stage's tiling (schema 11). */
typedef struct {
    uint32_t tile_extent;     /* the band */
    uint32_t num_tiles;       /* bands run (times column tiles of a 2-D tile) */
    uint32_t original_extent; /* the extent the bands divide */
    uint16_t halo;            /* rows a band reads beyond its own */
    uint8_t band_axis;        /* serialized axis the bands run along */
    uint8_t band;             /* kind (low nibble) | mode << 4 */
} tigris_tile_facts_t;

typedef struct {
    tigris_tile_plan_v10_t choices;
    tigris_tile_facts_t facts;
} tigris_tile_plan_v11_t;

typedef struct {
    uint32_t name_str;
    uint32_t offset; /* within the blob (16-aligned), or within the stage's block */
    uint32_t size_bytes;
} tigris_weight_entry_t;

typedef struct {
    uint16_t count;
    uint16_t pages; /* 65536-element pages of quant data */
} tigris_quant_header_t;

typedef struct {
    float scale;
    int32_t zero_point;
    uint16_t num_channels;
    uint16_t multiplier_off; /* element offset within its page */
    uint16_t shift_off;
    uint16_t page;
} tigris_quant_param_t;

typedef struct {
    uint16_t num_blocks;
    uint16_t compression; /* TIGRIS_COMPRESSION_* */
} tigris_weight_blocks_header_t;

typedef struct {
    uint16_t stage_idx;
    uint16_t first_weight_idx;
    uint16_t num_weights;
    uint16_t reserved;
    uint32_t blob_offset; /* relative to the blob area after the entries */
    uint32_t compressed_size;
    uint32_t uncompressed_size;
} tigris_weight_block_t;

typedef struct {
    uint16_t count;
    uint16_t reserved;
} tigris_op_attributes_header_t;

typedef struct {
    uint16_t op_index;
    uint8_t type; /* tigris_attr_kind_t */
    uint8_t data_len;
    uint32_t data_offset; /* into the attribute data pool */
} tigris_op_attribute_t;

typedef struct {
    uint16_t count;
    uint16_t reserved;
    uint32_t state_bytes;
} tigris_state_header_t;

typedef struct {
    uint16_t input;  /* tensor holding the value on entry */
    uint16_t output; /* tensor holding the value to keep, TIGRIS_NONE = unchanged */
    uint32_t offset; /* in the caller's state buffer */
    uint32_t bytes;
    uint32_t initial; /* offset of the initial value, from the section start */
} tigris_state_entry_t;

typedef struct {
    uint16_t count; /* graph 0 is the main graph */
    uint16_t reserved;
} tigris_subgraphs_header_t;

typedef struct {
    uint16_t first_stage;
    uint16_t num_stages;
    uint16_t inputs_off;
    uint16_t inputs_count;
    uint16_t outputs_off;
    uint16_t outputs_count;
} tigris_subgraph_t;

/* MEMORY section (id 14, schema 11+). */
typedef struct {
    uint32_t scheduled_peak; /* fast bytes the largest stage or chain holds at once */
    uint32_t slow_peak;      /* slow bytes the compiler scheduled (informational) */
    uint32_t reserved0;
    uint32_t reserved1;
} tigris_memory_section_t;

#if defined(_MSC_VER) || defined(__GNUC__) || defined(__clang__)
#  pragma pack(pop)
#endif

TIGRIS_STATIC_ASSERT(sizeof(tigris_file_header_t) == 48, file_header_is_48_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_section_entry_t) == 8, section_entry_is_8_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_tensor_t) == 16, tensor_is_16_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_spatial_t) == 18, spatial_is_18_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_op_t) == 38, op_is_38_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_stage_t) == 28, stage_is_28_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_tile_plan_t) == 24, tile_plan_is_24_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_tile_plan_v10_t) == 32, tile_plan_v10_is_32_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_tile_facts_t) == 16, tile_facts_is_16_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_tile_plan_v11_t) == 48, tile_plan_v11_is_48_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_weight_entry_t) == 12, weight_entry_is_12_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_quant_header_t) == 4, quant_header_is_4_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_quant_param_t) == 16, quant_param_is_16_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_weight_blocks_header_t) == 4, weight_blocks_header_is_4_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_weight_block_t) == 20, weight_block_is_20_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_op_attributes_header_t) == 4, op_attributes_header_is_4_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_op_attribute_t) == 8, op_attribute_is_8_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_state_header_t) == 8, state_header_is_8_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_state_entry_t) == 16, state_entry_is_16_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_subgraphs_header_t) == 4, subgraphs_header_is_4_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_subgraph_t) == 12, subgraph_is_12_bytes);
TIGRIS_STATIC_ASSERT(sizeof(tigris_memory_section_t) == 16, memory_section_is_16_bytes);

/* ---- The loaded plan ---------------------------------------------------- */

/* Parsed plan handle. All fields are zero-copy pointers into the loaded buffer. */
typedef struct {
    const tigris_file_header_t *header;
    const tigris_tensor_t *tensors;       /* [num_tensors] */
    const tigris_op_t *ops;               /* [num_ops] */
    const tigris_stage_t *stages;         /* [num_stages] */
    const tigris_tile_plan_t *tile_plans; /* [num_tile_plans] */
    const uint16_t *index_pool;
    const int32_t *shape_pool;
    const char *strings;
    const tigris_weight_entry_t *weight_entries; /* [num_weights] or NULL */
    const uint8_t *weight_blob;                  /* contiguous weight data */

    /* Compressed weight blocks (optional) */
    const tigris_weight_block_t *weight_blocks;
    const uint8_t *weight_blocks_data;
    uint16_t num_weight_blocks;
    uint16_t weight_compression;

    /* Optional variable-length per-operator attributes. */
    const tigris_op_attribute_t *op_attributes;
    const uint8_t *op_attribute_data;
    uint16_t num_op_attributes;

    /* Quantization (optional) */
    const tigris_quant_param_t *quant_params;
    const int32_t *quant_data;
    uint16_t num_quant_params;

    /* Variables kept across invocations (optional, schema v10+) */
    const tigris_state_entry_t *state_entries; /* [num_state] or NULL */
    const uint8_t *state_section;
    uint16_t num_state;
    uint32_t state_bytes;               /* size of the caller's state buffer */
    const tigris_subgraph_t *subgraphs; /* [num_subgraphs] or NULL */
    uint16_t num_subgraphs;
    uint16_t subgraph_depth; /* deepest control-flow nesting */

    const tigris_tile_plan_v10_t *tile_plans_v10; /* schema 10 only, otherwise NULL */

    /* Convenience: model I/O */
    const uint16_t *model_inputs;  /* [num_model_inputs] */
    const uint16_t *model_outputs; /* [num_model_outputs] */

    uint32_t scheduled_peak;                      /* schema 11+, 0 before */
    const tigris_tile_plan_v11_t *tile_plans_v11; /* schema 11+, otherwise NULL */
} tigris_plan_t;

/* ---- Helpers ------------------------------------------------------------ */

/* Bytes per element of a plan dtype; 0 for a dtype a plan cannot carry. */
static inline uint32_t tigris_dtype_size(uint8_t dtype)
{
    switch (dtype) {
    case TIGRIS_DTYPE_FLOAT32: return 4;
    case TIGRIS_DTYPE_UINT8: return 1;
    case TIGRIS_DTYPE_INT8: return 1;
    case TIGRIS_DTYPE_INT16: return 2;
    case TIGRIS_DTYPE_INT32: return 4;
    case TIGRIS_DTYPE_INT64: return 8;
    case TIGRIS_DTYPE_BOOL: return 1;
    default: return 0;
    }
}

static inline const char *tigris_tensor_name(const tigris_plan_t *plan, const tigris_tensor_t *t)
{
    return plan->strings + t->name_str;
}

static inline const int32_t *tigris_tensor_shape(const tigris_plan_t *plan, const tigris_tensor_t *t)
{
    return plan->shape_pool + t->shape_off;
}

static inline const char *tigris_op_name(const tigris_plan_t *plan, const tigris_op_t *op)
{
    return plan->strings + op->name_str;
}

static inline const uint16_t *tigris_op_inputs(const tigris_plan_t *plan, const tigris_op_t *op)
{
    return plan->index_pool + op->inputs_off;
}

static inline const uint16_t *tigris_op_outputs(const tigris_plan_t *plan, const tigris_op_t *op)
{
    return plan->index_pool + op->outputs_off;
}

static inline const uint16_t *tigris_stage_inputs(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    return plan->index_pool + stage->inputs_off;
}

static inline const uint16_t *tigris_stage_outputs(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    return plan->index_pool + stage->outputs_off;
}

static inline const uint16_t *tigris_stage_ops(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    return plan->index_pool + stage->ops_off;
}

/* Weight data; NULL while the weight's compressed block is not decoded. */
static inline const void *tigris_weight_data(const tigris_plan_t *plan, const tigris_weight_entry_t *weight)
{
    return plan->weight_blob ? (const void *)(plan->weight_blob + weight->offset) : NULL;
}

static inline const char *tigris_weight_name(const tigris_plan_t *plan, const tigris_weight_entry_t *weight)
{
    return plan->strings + weight->name_str;
}

static inline const void *tigris_op_weight(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (op->weight_idx == TIGRIS_NONE || plan->weight_entries == NULL) return NULL;
    return tigris_weight_data(plan, &plan->weight_entries[op->weight_idx]);
}

static inline const void *tigris_op_bias(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (op->bias_idx == TIGRIS_NONE || plan->weight_entries == NULL) return NULL;
    return tigris_weight_data(plan, &plan->weight_entries[op->bias_idx]);
}

static inline const tigris_quant_param_t *tigris_tensor_quant(const tigris_plan_t *plan, const tigris_tensor_t *t)
{
    if (t->quant_param_idx == TIGRIS_NONE || t->quant_param_idx >= plan->num_quant_params) return NULL;
    return &plan->quant_params[t->quant_param_idx];
}

static inline uint32_t tigris_quant_page_start(const tigris_quant_param_t *qp) { return (uint32_t)qp->page * 65536u; }

static inline const int32_t *tigris_quant_multipliers(const tigris_plan_t *plan, const tigris_quant_param_t *qp)
{
    return plan->quant_data + tigris_quant_page_start(qp) + qp->multiplier_off;
}

static inline const int32_t *tigris_quant_shifts(const tigris_plan_t *plan, const tigris_quant_param_t *qp)
{
    return plan->quant_data + tigris_quant_page_start(qp) + qp->shift_off;
}

static inline uint8_t tigris_tensor_declared_dtype(const tigris_tensor_t *t)
{
    return t->iface_dtype != 0 ? t->iface_dtype : t->dtype;
}

/* Variable-length attribute of an operator, or NULL. Entries are sorted by (op, kind). */
static inline const uint8_t *tigris_op_attribute_data(const tigris_plan_t *plan, uint16_t op_index, uint8_t type,
                                                      uint8_t *out_len)
{
    uint32_t lo = 0, hi = plan->num_op_attributes;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        const tigris_op_attribute_t *a = &plan->op_attributes[mid];
        if (a->op_index < op_index || (a->op_index == op_index && a->type < type)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (lo < plan->num_op_attributes && plan->op_attributes[lo].op_index == op_index &&
        plan->op_attributes[lo].type == type) {
        if (out_len) *out_len = plan->op_attributes[lo].data_len;
        return plan->op_attribute_data + plan->op_attributes[lo].data_offset;
    }
    if (out_len) *out_len = 0;
    return NULL;
}

/* Schema 2..9 tile record of a stage, or NULL (untiled, or a later schema). */
static inline const tigris_tile_plan_t *tigris_stage_tile_plan(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    if (plan->tile_plans == NULL || stage->tile_plan_idx == TIGRIS_NONE ||
        stage->tile_plan_idx >= plan->header->num_tile_plans)
        return NULL;
    return &plan->tile_plans[stage->tile_plan_idx];
}

/* The stage's tiling choices from any record layout; all zero when untiled. */
static inline tigris_tile_plan_v10_t tigris_stage_tiles(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    tigris_tile_plan_v10_t r;
    const tigris_tile_plan_t *v9;
    uint16_t idx = stage->tile_plan_idx;
    r.tileable = 0;
    r.axis = 0;
    r.tile_height = 0;
    r.num_tiles = 0;
    r.halo = 0;
    r.receptive_field = 0;
    r.original_height = 0;
    r.tiled_peak_bytes = 0;
    r.overhead_bytes = 0;
    r.tile_width = 0;
    r.flags = 0;
    r.tile_extent_wide = 0;
    r.reserved = 0;
    if (idx == TIGRIS_NONE || idx >= plan->header->num_tile_plans) return r;
    if (plan->tile_plans_v11) return plan->tile_plans_v11[idx].choices;
    if (plan->tile_plans_v10) return plan->tile_plans_v10[idx];
    v9 = tigris_stage_tile_plan(plan, stage);
    if (v9) {
        r.tileable = v9->tileable;
        r.axis = v9->axis;
        r.tile_height = v9->tile_height;
        r.num_tiles = v9->num_tiles;
        r.halo = v9->halo;
        r.receptive_field = v9->receptive_field;
        r.original_height = v9->original_height;
        r.tiled_peak_bytes = v9->tiled_peak_bytes;
        r.overhead_bytes = v9->overhead_bytes;
        r.tile_width = v9->tile_width;
        r.flags = v9->flags;
        r.tile_extent_wide = v9->tile_height;
    }
    return r;
}

static inline const char *tigris_model_name(const tigris_plan_t *plan)
{
    return plan->strings + plan->header->model_name_str;
}

/* Extra fast-arena bytes needed for LZ4 weight decompression (UINT32_MAX on overflow). */
uint32_t tigris_weight_decompression_overhead(const tigris_plan_t *plan);

/* Scheduled peak (schema 11+) or budget (earlier) plus compressed-weight room, saturating.
 * Assumes an aligned arena base. */
uint32_t tigris_fast_arena_required(const tigris_plan_t *plan);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_H */
