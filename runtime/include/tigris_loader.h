/*
 * TiGrIS runtime — plan loader. Zero-copy, zero-alloc: every pointer in the
 * loaded plan points into the caller's buffer, which must outlive it.
 */
#ifndef TIGRIS_LOADER_H
#define TIGRIS_LOADER_H

#include "tigris.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Build limits a plan needs, in the terms of the TIGRIS_MAX_* definitions. */
typedef struct {
    uint16_t tensors;
    uint16_t stage_inputs;
    uint16_t stage_outputs;
    uint16_t chain_stages;
    uint16_t spatial_ops_per_stage;
} tigris_plan_limits_t;

/* The extent a band kind divides (see tigris_stage_band_kind). */
typedef struct {
    uint32_t extent; /* rows, columns or leading elements the bands divide */
    uint8_t axis;    /* serialized axis the bands run along */
    uint8_t mode;    /* leading band mode, else 0 */
    uint16_t reserved;
} tigris_stage_band_t;

/* Parse and validate a .tgrs plan. On any failure *out_plan is all zero. */
tigris_error_t tigris_plan_load(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan);

/* As tigris_plan_load, and report the build limits the plan needs (out_required may be NULL). */
tigris_error_t tigris_plan_load_ex(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan,
                                   tigris_plan_limits_t *out_required);

/* The limits this build of the runtime allows. */
void tigris_build_limits(tigris_plan_limits_t *out);

/* Derive what a stage's tile record states; 1 when derived, 0 when the stage's tiling has
 * no such description (chain members, control flow). An untileable record yields all zero. */
int tigris_stage_tile_facts(const tigris_plan_t *plan, const tigris_stage_t *stage, tigris_tile_facts_t *out);

/* How the executor bands a standalone stage; `band` may be NULL. */
tigris_band_kind_t tigris_stage_band_kind(const tigris_plan_t *plan, const tigris_stage_t *stage,
                                          tigris_stage_band_t *band);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_LOADER_H */
