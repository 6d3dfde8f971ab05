// Public helpers over a loaded plan: tile facts and band kinds (band_rules.h does the
// work), compressed-weight room and the fast-arena requirement.
#include <string.h>

#include "common/features.h"
#include "common/op_attribute.h"
#include "plan/band_rules.h"

const uint8_t *tigris_rt::op_attribute(const tigris_plan_t *plan, uint16_t op_index, uint8_t kind, uint8_t *len)
{
    return tigris_op_attribute_data(plan, op_index, kind, len);
}

tigris_tile_plan_v10_t tigris_rt::stage_tiles(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    return tigris_stage_tiles(plan, stage);
}

extern "C" int tigris_stage_tile_facts(const tigris_plan_t *plan, const tigris_stage_t *stage, tigris_tile_facts_t *out)
{
    if (out) memset(out, 0, sizeof(*out));
    if (plan == nullptr || plan->header == nullptr || stage == nullptr || out == nullptr) return 0;
    if (stage->chain_len != 0 || tigris_rt::stage_holds_control_flow(plan, stage)) return 0;
    if (!tigris_rt::stage_tiles(plan, stage).tileable) return 1;  // untiled: all zero
    tigris_rt::StageBand band;
    if (tigris_rt::stage_band(plan, stage, &band) == TIGRIS_BAND_KIND_NONE) return 0;
    return tigris_rt::band_facts(plan, stage, &band, out) ? 1 : 0;
}

extern "C" tigris_band_kind_t tigris_stage_band_kind(const tigris_plan_t *plan, const tigris_stage_t *stage,
                                                     tigris_stage_band_t *band)
{
    if (band) memset(band, 0, sizeof(*band));
    if (plan == nullptr || plan->header == nullptr || stage == nullptr) return TIGRIS_BAND_KIND_NONE;
    tigris_rt::StageBand b;
    const tigris_band_kind_t kind = tigris_rt::stage_band(plan, stage, &b);
    if (band && kind != TIGRIS_BAND_KIND_NONE) {
        band->extent = b.extent;
        band->axis = b.axis;
        band->mode = b.mode;
    }
    return kind;
}

namespace {

// Size rounded up to the tensor alignment; false on overflow.
bool aligned_size(uint32_t size, uint32_t *out)
{
    const uint64_t a = (uint64_t)size + (TIGRIS_TENSOR_ALIGN - 1u);
    const uint64_t r = a & ~(uint64_t)(TIGRIS_TENSOR_ALIGN - 1u);
    if (r > UINT32_MAX) return false;
    *out = (uint32_t)r;
    return true;
}

// The block of stage `s`, or nullptr (blocks are sorted by stage).
const tigris_weight_block_t *stage_block(const tigris_plan_t *plan, uint32_t s)
{
    uint32_t lo = 0, hi = plan->num_weight_blocks;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2u;
        if (plan->weight_blocks[mid].stage_idx < s) lo = mid + 1u;
        else hi = mid;
    }
    return (lo < plan->num_weight_blocks && plan->weight_blocks[lo].stage_idx == s) ? &plan->weight_blocks[lo]
                                                                                    : nullptr;
}

}  // namespace

extern "C" uint32_t tigris_weight_decompression_overhead(const tigris_plan_t *plan)
{
    // TIGRIS_NO_WEIGHT_BLOCKS: this build loads no plan with blocks, so it never decodes one.
    if (!tigris_rt::weight_blocks_built()) return 0;
    if (plan == nullptr || plan->header == nullptr || plan->weight_blocks == nullptr) return 0;
    uint32_t worst = 0;
    for (uint32_t i = 0; i < plan->num_weight_blocks; i++) {  // a standalone stage's block
        uint32_t size;
        if (!aligned_size(plan->weight_blocks[i].uncompressed_size, &size)) return UINT32_MAX;
        if (size > worst) worst = size;
    }
    for (uint32_t h = 0; h < plan->header->num_stages; h++) {  // a chain holds every member's block
        const tigris_stage_t &head = plan->stages[h];
        if (head.chain_len < 2 || head.chain_id != h) continue;
        uint64_t sum = 0;
        for (uint32_t m = h; m < h + head.chain_len && m < plan->header->num_stages; m++) {
            const tigris_weight_block_t *b = stage_block(plan, m);
            uint32_t size;
            if (b == nullptr) continue;
            if (!aligned_size(b->uncompressed_size, &size)) return UINT32_MAX;
            sum += size;
        }
        if (sum > UINT32_MAX) return UINT32_MAX;
        if (sum > worst) worst = (uint32_t)sum;
    }
    return worst;
}

extern "C" uint32_t tigris_fast_arena_required(const tigris_plan_t *plan)
{
    if (plan == nullptr || plan->header == nullptr) return UINT32_MAX;
    const uint32_t base = plan->header->version >= 11 ? plan->scheduled_peak : plan->header->budget;
    const uint32_t extra = tigris_weight_decompression_overhead(plan);
    return extra > UINT32_MAX - base ? UINT32_MAX : base + extra;
}
