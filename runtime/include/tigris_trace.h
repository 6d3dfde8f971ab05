/*
 * TiGrIS runtime — execution trace events. Reported only by a runtime built
 * with TIGRIS_TRACE defined (CMake option TIGRIS_TRACE=ON); otherwise the
 * hooks compile to nothing.
 */
#ifndef TIGRIS_TRACE_H
#define TIGRIS_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TIGRIS_TRACE_STAGE_BEGIN = 1,
    TIGRIS_TRACE_STAGE_END = 2,
    TIGRIS_TRACE_TILE_BEGIN = 3,
    TIGRIS_TRACE_LOAD = 4,
    TIGRIS_TRACE_SPILL = 5,
    TIGRIS_TRACE_ALLOC = 6,
    TIGRIS_TRACE_RESET = 7,
    TIGRIS_TRACE_MOVE = 8,
    TIGRIS_TRACE_WEIGHTS = 9,
    TIGRIS_TRACE_OP = 10,
    TIGRIS_TRACE_COPY = 11
} tigris_trace_kind_t;

/* Execution path of a stage (STAGE_BEGIN). */
typedef enum {
    TIGRIS_PATH_NORMAL = 0,
    TIGRIS_PATH_TILED = 1, /* height/length stripes */
    TIGRIS_PATH_TILED_2D = 2,
    TIGRIS_PATH_BY_INPUT = 3,
    TIGRIS_PATH_TRANSPOSE = 4,
    TIGRIS_PATH_ROWS = 5,
    TIGRIS_PATH_RESHAPE = 6,
    TIGRIS_PATH_CHAIN = 7,
    TIGRIS_PATH_CONTROL = 8,
    TIGRIS_PATH_LEADING = 9,
    TIGRIS_PATH_CHANNELS = 10, /* rows x channel bands */
    TIGRIS_PATH_CONCAT = 11    /* a Concat banded along its own axis */
} tigris_trace_path_t;

#define TIGRIS_TRACE_POOL_FAST 0
#define TIGRIS_TRACE_POOL_SLOW 1
#define TIGRIS_TRACE_POOL_NONE 0xFF

/* One event; valid only during the callback. Unused u16 fields are 0xFFFF,
 * unused rows/cols -1. */
typedef struct {
    uint8_t kind; /* tigris_trace_kind_t */
    uint8_t pool; /* TIGRIS_TRACE_POOL_* */
    uint8_t path; /* tigris_trace_path_t, STAGE_BEGIN only */
    uint8_t pad0;
    uint16_t stage;
    uint16_t tensor;
    uint16_t op; /* op index; tile index for TILE_BEGIN */
    uint16_t pad1;
    uint32_t offset;     /* destination offset within its pool */
    uint32_t src_offset; /* source offset within the other pool */
    uint32_t bytes;
    int32_t row0, row1; /* rows [row0, row1) of a band, -1 when whole */
    int32_t col0, col1; /* columns of a 2-D tile, -1 otherwise */
    uint32_t fast_used; /* after the event */
    uint32_t slow_used;
} tigris_trace_event_t;

typedef void (*tigris_trace_fn)(const tigris_trace_event_t *event, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_TRACE_H */
