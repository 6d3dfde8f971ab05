// Runtime features a firmware may leave out, like the kernel families (kernels/kernel_set.h):
// `tigris codegen` writes TIGRIS_NO_<FEATURE> for each one its plan does not use. The executor
// then no longer reaches the feature's code, so the linker leaves it out, and the loader refuses
// a plan that needs it with TIGRIS_ERR_FEATURE_DISABLED (docs/firmware.md, "Runtime features").
#pragma once

namespace tigris_rt {

// TIGRIS_NO_BANDS: no banded stage (a tile record that is tileable) and no chain. Leaves out
// the band rules, the tiled paths, chains and the band cost model, and the kernels' banded
// paths (they read no tile context, kernels/common/geometry.h).
constexpr bool bands_built()
{
#ifdef TIGRIS_NO_BANDS
    return false;
#else
    return true;
#endif
}

// TIGRIS_NO_CONTROL_FLOW: no If / While operator (subgraphs run by the control-flow path).
constexpr bool control_flow_built()
{
#ifdef TIGRIS_NO_CONTROL_FLOW
    return false;
#else
    return true;
#endif
}

// TIGRIS_NO_WEIGHT_BLOCKS: no WEIGHT_BLOCKS section (every weight read in place from the
// blob). Leaves out the per-stage block placement, the LZ4 decoder and the block coverage check.
constexpr bool weight_blocks_built()
{
#ifdef TIGRIS_NO_WEIGHT_BLOCKS
    return false;
#else
    return true;
#endif
}

// TIGRIS_NO_STATE: no state entry (no variable kept across invocations). Leaves out binding
// the caller's state buffer and copying it back.
constexpr bool state_built()
{
#ifdef TIGRIS_NO_STATE
    return false;
#else
    return true;
#endif
}

// TIGRIS_NO_IFACE_CONVERSION: no model input or output declared in another dtype than it is
// stored in (no float32 or uint8 interface over int8 data). Leaves out the interface's
// quantize / dequantize and uint8 conversions: the caller's bytes are copied as they are.
constexpr bool iface_conversion_built()
{
#ifdef TIGRIS_NO_IFACE_CONVERSION
    return false;
#else
    return true;
#endif
}

}  // namespace tigris_rt
