// CMSIS-NN adapter workspace (docs/backends.md §3): the exact reservation a plan needs, the
// fast-arena figure that includes it, and its placement at the top of one mem's fast buffer.
#include "backends/cmsis_nn/cmsis_nn_internal.h"
#include "tigris_config.h"
#include "tigris_kernels_cmsis_nn.h"

namespace tigris_cmsis {

namespace {

Context g_context;  // zero-initialised: nothing prepared

// Reservation bytes of the needs: vendor scratch, then multipliers and shifts.
uint64_t reservation_bytes(const Needs &n)
{
    return tigris_accel::align16(n.vendor) + tigris_accel::align16(n.expand_channels * 8u);
}

// Bytes between the end of a core arena of `core` bytes (its base TIGRIS_TENSOR_ALIGN
// aligned) and the next 16-aligned address, in the worst case of that alignment.
uint64_t separation_gap(uint64_t core)
{
    const uint64_t a = TIGRIS_TENSOR_ALIGN < 16 ? TIGRIS_TENSOR_ALIGN : 16;
    return (16u - a) + (a - core % a) % a;
}

}  // namespace

Context &context() { return g_context; }

bool plan_needs(const tigris_plan_t *plan, Needs *n)
{
    if (plan == nullptr || plan->header == nullptr || plan->tensors == nullptr) return false;
    if (plan->ops == nullptr && plan->header->num_ops > 0) return false;
    n->vendor = n->expand_channels = 0;
    n->factors_checked = tigris_accel::plan_factors_in_range(plan);
    for (uint16_t i = 0; i < plan->header->num_ops; i++) {
        if (!tigris_accel::int8_op(plan, &plan->ops[i])) continue;
        const tigris_accel::ScanCall scan(plan, i);
        uint32_t channels = 0;
        const int64_t need = op_vendor_need(scan.call, n->factors_checked, &channels);
        if (need < 0) continue;
        if ((uint64_t)need > n->vendor) n->vendor = (uint64_t)need;
        if (channels > n->expand_channels) n->expand_channels = channels;
    }
    return true;
}

}  // namespace tigris_cmsis

using tigris_cmsis::Context;
using tigris_cmsis::Needs;

extern "C" uint32_t tigris_cmsis_nn_scratch_required(const tigris_plan_t *plan)
{
    Needs n;
    if (!tigris_cmsis::plan_needs(plan, &n)) return UINT32_MAX;
    const uint64_t bytes = tigris_cmsis::reservation_bytes(n);
    return bytes >= UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
}

extern "C" uint32_t tigris_cmsis_nn_fast_arena_required(const tigris_plan_t *plan)
{
    const uint32_t scratch = tigris_cmsis_nn_scratch_required(plan);
    const uint32_t core = tigris_fast_arena_required(plan);
    if (scratch == UINT32_MAX || core == UINT32_MAX) return UINT32_MAX;
    if (scratch == 0) return core;
    const uint64_t total = (uint64_t)core + tigris_cmsis::separation_gap(core) + scratch;
    return total >= UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

namespace {

// The new fast size leaving `bytes` (16-aligned start) at the top of the buffer; false when
// the buffer cannot hold them above what is in use and, for schema 11 plans, the plan's
// core requirement (the executor's own up-front check).
bool carve(const tigris_plan_t *plan, const tigris_mem_t *mem, uint64_t bytes, uint32_t *new_size)
{
    *new_size = mem->fast_size;
    if (bytes > 0) {
        if (bytes > mem->fast_size) return false;
        const uintptr_t base = (uintptr_t)mem->fast_base;
        const uintptr_t start = (base + mem->fast_size - (uintptr_t)bytes) & ~(uintptr_t)15;
        if (start < base) return false;
        *new_size = (uint32_t)(start - base);
    }
    if (*new_size < mem->fast_used) return false;
    if (plan->header->version < 11) return true;
    const uint32_t core = tigris_fast_arena_required(plan);
    return core != UINT32_MAX && *new_size - mem->fast_used >= core;
}

}  // namespace

extern "C" int tigris_cmsis_nn_prepare(const tigris_plan_t *plan, tigris_mem_t *mem)
{
    if (plan == nullptr || plan->header == nullptr || mem == nullptr || mem->fast_base == nullptr) return -1;
    Context &ctx = tigris_cmsis::context();
    if (ctx.active) {  // prepared before: start again from the whole buffer
        if (ctx.mem != mem) return -1;
        mem->fast_size = ctx.saved_fast_size;
        ctx = Context{};
    }
    Needs n;
    if (!tigris_cmsis::plan_needs(plan, &n)) return -1;
    const uint64_t vendor = tigris_accel::align16(n.vendor), bytes = tigris_cmsis::reservation_bytes(n);
    uint32_t new_size = 0;
    if (bytes >= UINT32_MAX || !carve(plan, mem, bytes, &new_size)) return -1;
    uint8_t *start = mem->fast_base + new_size;
    ctx.active = true;
    ctx.mem = mem;
    ctx.saved_fast_size = mem->fast_size;
    ctx.ws.vendor = n.vendor > 0 ? start : nullptr;
    ctx.ws.vendor_size = (uint32_t)n.vendor;
    ctx.ws.expand = n.expand_channels > 0 ? (int32_t *)(start + vendor) : nullptr;
    ctx.ws.expand_channels = (uint32_t)n.expand_channels;
    ctx.ws.factors_checked = n.factors_checked;
    ctx.ops = plan->ops;
    ctx.quant_data = plan->quant_data;
    mem->fast_size = new_size;
    return 0;
}

extern "C" int tigris_cmsis_nn_deinit(tigris_mem_t *mem)
{
    if (mem == nullptr) return -1;
    Context &ctx = tigris_cmsis::context();
    if (!ctx.active) return 0;
    if (ctx.mem != mem) return -1;
    mem->fast_size = ctx.saved_fast_size;
    ctx = Context{};
    return 0;
}
