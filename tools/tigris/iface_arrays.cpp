#include "tools/tigris/iface_arrays.h"

#include "compiler/report/format.h"
#include "compiler/report/iface_layout.h"
#include "tigris_iface.h"
#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

std::string describe(const IfaceSpec& spec) {
  return report::format_shape(spec.shape) + " " + report::dtype_name(spec.dtype);
}

}  // namespace

IfaceSpec iface_spec(const tigris_plan_t& plan, uint16_t tensor, bool stored_order) {
  const tigris_tensor_t& t = plan.tensors[tensor];
  IfaceSpec spec;
  spec.tensor = tensor;
  spec.name = tigris_tensor_name(&plan, &t);
  spec.dtype = tigris_tensor_declared_dtype(&t);
  spec.stored_shape = report::stored_shape(plan, t);
  spec.stored_order = stored_order;
  if (stored_order) {
    spec.shape = spec.stored_shape;
    for (size_t i = 0; i < spec.shape.size(); ++i) spec.stored_from_user.push_back(static_cast<int>(i));
  } else {
    spec.shape = report::declared_shape(plan, t);
    spec.stored_from_user = report::stored_from_declared(t);
  }
  spec.bytes = tigris_iface_bytes(&plan, tensor);
  if (spec.bytes == 0 && t.size_bytes != 0) {
    throw Failure("'" + spec.name + "': the declared dtype " + report::dtype_name(spec.dtype) +
                  " has no conversion to the stored " + report::dtype_name(t.dtype));
  }
  return spec;
}

std::vector<uint8_t> array_to_plan(const Array& array, const IfaceSpec& spec, const std::string& where) {
  if (array.dtype != spec.dtype) {
    throw Failure(where + ": " + report::dtype_name(array.dtype) + " array, input '" + spec.name + "' is " +
                  describe(spec));
  }
  if (array.shape != spec.shape) {
    std::string hint;
    if (!spec.stored_order && spec.shape != spec.stored_shape) {
      hint = " (the model's declared axis order; --stored-order takes " + report::format_shape(spec.stored_shape) + ")";
    }
    throw Failure(where + ": shape " + report::format_shape(array.shape) + ", input '" + spec.name + "' is " +
                  describe(spec) + hint);
  }
  return raw_to_plan(array.data, spec, where);
}

std::vector<uint8_t> raw_to_plan(const std::vector<uint8_t>& raw, const IfaceSpec& spec, const std::string& where) {
  if (raw.size() != spec.bytes) {
    throw Failure(where + ": " + std::to_string(raw.size()) + " bytes, input '" + spec.name + "' takes " +
                  std::to_string(spec.bytes) + " (" + describe(spec) + ")");
  }
  if (report::is_identity(spec.stored_from_user)) return raw;
  return permute_axes(raw, spec.shape, spec.stored_from_user, report::dtype_size(spec.dtype));
}

Array plan_to_array(const std::vector<uint8_t>& bytes, const IfaceSpec& spec) {
  Array a;
  a.dtype = spec.dtype;
  a.shape = spec.shape;
  a.data = report::is_identity(spec.stored_from_user)
               ? bytes
               : permute_axes(bytes, spec.stored_shape, inverse_permutation(spec.stored_from_user),
                              report::dtype_size(spec.dtype));
  return a;
}

}  // namespace tigris::cli
