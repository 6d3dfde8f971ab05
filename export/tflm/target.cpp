// Target ABI names.
#include "export/tflm/target.h"

namespace tigris::tflm {

const char* target_name(Target t) {
  switch (t) {
  case Target::ArmNoneEabi: return "arm-none-eabi";
  case Target::Ilp32: return "ilp32";
  case Target::Lp64: return "lp64";
  }
  return "?";
}

int abi_index(Target t) { return t == Target::ArmNoneEabi ? 0 : t == Target::Ilp32 ? 1 : 2; }

std::optional<Target> parse_target(std::string_view name) {
  for (Target t : {Target::ArmNoneEabi, Target::Ilp32, Target::Lp64})
    if (name == target_name(t)) return t;
  return std::nullopt;
}

}  // namespace tigris::tflm
