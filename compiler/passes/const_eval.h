// Host evaluation of operators whose inputs are all constants (shape arithmetic,
// constant weights pre-processing). Numbers are carried as double and rounded to
// the result dtype after every operator, which gives float32 results identical to
// float arithmetic for + - * /.
#pragma once

#include <optional>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::passes {

struct Value {
  ir::DType dtype = ir::DType::Float32;
  ir::Shape shape;
  std::vector<double> v;
};

Value value_of(const ir::Tensor& t);
// Round to dtype and encode.
std::vector<uint8_t> encode_value(const Value& v);

// Outputs of `n` given its input values (nullopt entries = absent optional inputs), or
// nullopt when this operator is not evaluated on the host.
std::optional<std::vector<Value>> evaluate(const ir::Node& n, const std::vector<std::optional<Value>>& inputs,
                                           int64_t opset);

}  // namespace tigris::passes
