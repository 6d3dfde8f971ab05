// ESP-NN adapter workspace (docs/backends.md §4): prepare scans the plan, refuses invalid or
// overflowing metadata (-1) and misaligned Conv / Depthwise weights (-2), then obtains
// 16-aligned blocks from the platform allocator. esp-nn's depthwise scratch is mandatory
// (-1 when it cannot be had); the conv scratch, the expanded factors and the padded-image
// copy are optional: without them the affected calls run on the reference kernels.
#include "backends/esp_nn/esp_nn_alloc.h"
#include "backends/esp_nn/esp_nn_internal.h"
#include "tigris_kernels_esp_nn.h"

namespace tigris_esp {

namespace {

Workspace g_workspace;  // zero-initialised: nothing prepared

struct Totals {
    uint64_t conv_vendor, dw_vendor, expand_channels, pad;
};

// 0, -1 (invalid / overflowing) or -2 (misaligned weights).
int scan(const tigris_plan_t *plan, Totals *t)
{
    *t = Totals{};
    if (plan->tensors == nullptr || (plan->ops == nullptr && plan->header->num_ops > 0)) return -1;
    for (uint16_t i = 0; i < plan->header->num_ops; i++) {
        const tigris_op_t *op = &plan->ops[i];
        if (!tigris_accel::op_indices_valid(plan, op)) return -1;
        if (!tigris_accel::int8_op(plan, op)) continue;
        const tigris_accel::ScanCall sc(plan, i);
        OpNeeds n;
        if (!op_needs(sc.call, &n)) continue;
        if (n.weights != nullptr && ((uintptr_t)n.weights & 15u) != 0) return -2;
        if (n.conv_vendor > t->conv_vendor) t->conv_vendor = n.conv_vendor;
        if (n.dw_vendor > t->dw_vendor) t->dw_vendor = n.dw_vendor;
        if (n.expand_channels > t->expand_channels) t->expand_channels = n.expand_channels;
        if (n.pad > t->pad) t->pad = n.pad;
    }
    const uint64_t limit = UINT32_MAX;
    if (t->conv_vendor > limit || t->dw_vendor > limit || t->expand_channels * 8u > limit || t->pad > limit) return -1;
    return 0;
}

void *take(uint64_t bytes) { return bytes > 0 ? tigris_esp_nn_platform_alloc(16, (uint32_t)bytes) : nullptr; }

// The shared conv / depthwise scratch: both when possible, else the depthwise part alone.
bool take_vendor(const Totals &t, Workspace *ws)
{
    const uint64_t both = t.conv_vendor > t.dw_vendor ? t.conv_vendor : t.dw_vendor;
    ws->vendor = (uint8_t *)take(both);
    ws->vendor_size = ws->vendor != nullptr ? (uint32_t)both : 0;
    if (ws->vendor != nullptr || t.dw_vendor == 0) return true;
    ws->vendor = (uint8_t *)take(t.dw_vendor);
    ws->vendor_size = ws->vendor != nullptr ? (uint32_t)t.dw_vendor : 0;
    return ws->vendor != nullptr;
}

}  // namespace

Workspace &workspace() { return g_workspace; }

}  // namespace tigris_esp

extern "C" int tigris_esp_nn_prepare(const tigris_plan_t *plan, tigris_mem_t *mem)
{
    if (plan == nullptr || plan->header == nullptr || mem == nullptr) return -1;
    tigris_esp_nn_deinit();  // a previous preparation's workspace
    tigris_esp::Totals t;
    const int rc = tigris_esp::scan(plan, &t);
    if (rc != 0) return rc;
    tigris_esp::Workspace &ws = tigris_esp::workspace();
    if (!tigris_esp::take_vendor(t, &ws)) {
        tigris_esp_nn_deinit();
        return -1;
    }
    ws.expand = (int32_t *)tigris_esp::take(t.expand_channels * 8u);
    ws.expand_channels = ws.expand != nullptr ? (uint32_t)t.expand_channels : 0;
    ws.pad = (int8_t *)tigris_esp::take(t.pad);
    ws.pad_size = ws.pad != nullptr ? (uint32_t)t.pad : 0;
    return 0;
}

extern "C" void tigris_esp_nn_deinit(void)
{
    tigris_esp::Workspace &ws = tigris_esp::workspace();
    if (ws.vendor != nullptr) tigris_esp_nn_platform_free(ws.vendor);
    if (ws.expand != nullptr) tigris_esp_nn_platform_free(ws.expand);
    if (ws.pad != nullptr) tigris_esp_nn_platform_free(ws.pad);
    ws = tigris_esp::Workspace{};
}
