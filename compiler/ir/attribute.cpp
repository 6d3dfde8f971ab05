#include "compiler/ir/attribute.h"

#include "compiler/ir/error.h"

namespace tigris::ir {

namespace {

template <typename T>
const T* typed(const std::map<std::string, Attribute>& values, const std::string& name) {
  auto it = values.find(name);
  if (it == values.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (!v) throw CompileError(ErrorKind::Invalid, "attribute '" + name + "' has an unexpected type");
  return v;
}

}  // namespace

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
  const int64_t* v = typed<int64_t>(values_, name);
  return v ? *v : fallback;
}

float Attributes::get_float(const std::string& name, float fallback) const {
  auto it = values_.find(name);
  if (it != values_.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<float>(*i);
  }
  const float* v = typed<float>(values_, name);
  return v ? *v : fallback;
}

std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
  const std::string* v = typed<std::string>(values_, name);
  return v ? *v : fallback;
}

std::vector<int64_t> Attributes::get_ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  const std::vector<int64_t>* v = typed<std::vector<int64_t>>(values_, name);
  return v ? *v : fallback;
}

std::vector<float> Attributes::get_floats(const std::string& name, const std::vector<float>& fallback) const {
  const std::vector<float>* v = typed<std::vector<float>>(values_, name);
  return v ? *v : fallback;
}

const TensorValue* Attributes::get_tensor(const std::string& name) const { return typed<TensorValue>(values_, name); }

}  // namespace tigris::ir
