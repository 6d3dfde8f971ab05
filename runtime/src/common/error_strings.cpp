// Fixed, human-readable strings for the three error enums of the public API. A firmware that
// prints the numeric codes instead may build without them (TIGRIS_NO_ERROR_STRINGS, like TFLM's
// TF_LITE_STRIP_ERROR_STRINGS; docs/firmware.md): each function then answers "ok" or one
// generic string per enum.
#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_mem.h"

#ifdef TIGRIS_NO_ERROR_STRINGS

extern "C" const char *tigris_error_str(tigris_error_t err)
{
    return err == TIGRIS_OK ? "ok" : "plan error (TIGRIS_NO_ERROR_STRINGS: see the code)";
}

extern "C" const char *tigris_mem_error_str(tigris_mem_error_t err)
{
    return err == TIGRIS_MEM_OK ? "ok" : "memory error (TIGRIS_NO_ERROR_STRINGS: see the code)";
}

extern "C" const char *tigris_exec_error_str(tigris_exec_error_t err)
{
    return err == TIGRIS_EXEC_OK ? "ok" : "execution error (TIGRIS_NO_ERROR_STRINGS: see the code)";
}

#else

extern "C" const char *tigris_error_str(tigris_error_t err)
{
    switch (err) {
    case TIGRIS_OK: return "ok";
    case TIGRIS_ERR_NULL: return "null pointer argument";
    case TIGRIS_ERR_TOO_SMALL: return "buffer smaller than the plan header";
    case TIGRIS_ERR_BAD_MAGIC: return "not a TiGrIS plan (bad magic)";
    case TIGRIS_ERR_BAD_VERSION: return "unsupported plan schema version";
    case TIGRIS_ERR_BAD_SIZE: return "plan size does not match the buffer length";
    case TIGRIS_ERR_BAD_SECTION: return "malformed plan section";
    case TIGRIS_ERR_MISSING_SEC: return "required plan section missing";
    case TIGRIS_ERR_ENDIAN: return "platform is not little-endian";
    case TIGRIS_ERR_PLAN_LIMITS: return "plan exceeds the executor limits of this build";
    case TIGRIS_ERR_BAD_TENSOR: return "tensor metadata is not executable";
    case TIGRIS_ERR_BAD_OPERATOR: return "operator contract is not executable";
    case TIGRIS_ERR_BAD_INTERFACE: return "declared model interface is not convertible";
    case TIGRIS_ERR_KERNEL_DISABLED: return "this build leaves out a kernel the plan uses";
    case TIGRIS_ERR_MEM: return "arena cannot hold the tensor";
    case TIGRIS_ERR_TENSOR_SLOTS: return "memory manager has fewer tensor slots than the plan";
    case TIGRIS_ERR_TILE_FACTS: return "a tile record's stated tiling disagrees with the plan";
    case TIGRIS_ERR_CHAIN_BAND: return "a chained stage reads a tensor outside its band; recompile the model";
    case TIGRIS_ERR_TILE_BAND: return "a tiled stage reads or writes a tensor outside its band; recompile the model";
    case TIGRIS_ERR_FEATURE_DISABLED: return "this build leaves out a runtime feature the plan uses (bands, control flow, weight blocks, state or interface conversions)";
    }
    return "unknown error";
}

extern "C" const char *tigris_mem_error_str(tigris_mem_error_t err)
{
    switch (err) {
    case TIGRIS_MEM_OK: return "ok";
    case TIGRIS_MEM_ERR_NULL: return "null pointer argument";
    case TIGRIS_MEM_ERR_OOM: return "out of memory in arena";
    case TIGRIS_MEM_ERR_BAD_INDEX: return "tensor index out of range";
    case TIGRIS_MEM_ERR_NOT_SET: return "tensor pointer is not set";
    }
    return "unknown error";
}

extern "C" const char *tigris_exec_error_str(tigris_exec_error_t err)
{
    switch (err) {
    case TIGRIS_EXEC_OK: return "ok";
    case TIGRIS_EXEC_ERR_NULL: return "null pointer argument";
    case TIGRIS_EXEC_ERR_MEM: return "arena too small for the plan";
    case TIGRIS_EXEC_ERR_KERNEL: return "kernel returned an error";
    case TIGRIS_EXEC_ERR_NO_STAGES: return "plan has no stages";
    case TIGRIS_EXEC_ERR_TILE: return "tiled execution error";
    case TIGRIS_EXEC_ERR_WORKSPACE: return "executor workspace unavailable, null or too small";
    case TIGRIS_EXEC_ERR_STATE: return "plan keeps state and no state buffer, or too small a one, was given";
    }
    return "unknown error";
}

#endif  // TIGRIS_NO_ERROR_STRINGS
