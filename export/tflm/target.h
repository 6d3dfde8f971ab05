// The C ABIs TiGrIS models TFLite Micro's arena for.
#pragma once

#include <optional>
#include <string_view>

namespace tigris::tflm {

enum class Target {
  ArmNoneEabi,  // 4-byte pointers, short enums (GCC for Cortex-M)
  Ilp32,        // 4-byte pointers, 4-byte enums
  Lp64,         // 8-byte pointers, 4-byte enums (64-bit hosts)
};

const char* target_name(Target t);  // "arm-none-eabi", "ilp32", "lp64"
std::optional<Target> parse_target(std::string_view name);
// The column of a per-ABI size table {arm-none-eabi, ilp32, lp64}.
int abi_index(Target t);

}  // namespace tigris::tflm
