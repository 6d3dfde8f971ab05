// Replacing one node by a short sequence of nodes, in place in the execution order.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::passes {

class Rewrite {
 public:
  // Replace node `index` of `g` (its outputs keep their tensors when passed as `output`).
  Rewrite(ir::Graph& g, size_t index);

  // Append a node; returns its output. `output` reuses an existing tensor (the original
  // node's output), else a new activation of `shape`/`dtype` is made.
  ir::TensorId op(const std::string& type, std::vector<ir::TensorId> inputs, ir::Shape shape, ir::DType dtype,
                  ir::Attributes attrs = {}, ir::TensorId output = ir::kNoTensor);
  // Same shape and dtype as tensor `like`.
  ir::TensorId op_like(const std::string& type, std::vector<ir::TensorId> inputs, ir::TensorId like,
                       ir::Attributes attrs = {}, ir::TensorId output = ir::kNoTensor);
  ir::TensorId scalar(float value);  // a float32 constant of shape []

  // Put the new nodes where the original was; returns the index of the last one.
  size_t commit();

 private:
  ir::Graph& g_;
  size_t index_;
  std::string base_;
  std::vector<ir::Node> nodes_;
};

}  // namespace tigris::passes
