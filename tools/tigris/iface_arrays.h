// Arrays across the plan's model boundary. The caller's arrays are in the model's
// declared axis order and dtype; the runtime's tigris_input_write/tigris_output_read
// take declared dtype in the plan's stored axis order. These helpers check an array
// against what the plan declares and reorder its axes (see compiler/report/iface_layout.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tigris.h"
#include "tools/tigris/arrays.h"

namespace tigris::cli {

struct IfaceSpec {
  uint16_t tensor = 0;
  std::string name;
  int dtype = 0;               // declared dtype
  std::vector<int64_t> shape;  // the shape the caller's array has
  std::vector<int64_t> stored_shape;
  std::vector<int> stored_from_user;  // stored axis i is caller axis perm[i]
  uint32_t bytes = 0;                 // tigris_iface_bytes
  bool stored_order = false;          // the caller uses the stored order (no reordering)
};

IfaceSpec iface_spec(const tigris_plan_t& plan, uint16_t tensor, bool stored_order);

// Check `array` (read from `where`) against the input and return the bytes for
// tigris_input_write. Failure names the file and the input on a dtype or shape mismatch.
std::vector<uint8_t> array_to_plan(const Array& array, const IfaceSpec& spec, const std::string& where);

// Raw .bin data: declared dtype, the caller's axis order, exactly spec.bytes long.
std::vector<uint8_t> raw_to_plan(const std::vector<uint8_t>& raw, const IfaceSpec& spec, const std::string& where);

// An output read back with tigris_output_read, as the caller's array.
Array plan_to_array(const std::vector<uint8_t>& bytes, const IfaceSpec& spec);

}  // namespace tigris::cli
