#include "compiler/passes/rewrite.h"

#include <algorithm>

#include "compiler/passes/util.h"

namespace tigris::passes {

Rewrite::Rewrite(ir::Graph& g, size_t index) : g_(g), index_(index), base_(g.nodes.at(index).name) {}

ir::TensorId Rewrite::op(const std::string& type, std::vector<ir::TensorId> inputs, ir::Shape shape, ir::DType dtype,
                         ir::Attributes attrs, ir::TensorId output) {
  ir::Node n;
  n.op = type;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  if (output == ir::kNoTensor) output = add_activation(g_, base_ + "_" + type, dtype, shape);
  n.outputs = {output};
  if (nodes_.empty()) {
    n.name = base_;
  } else {
    std::string name = base_ + "_" + type;
    auto taken = [&](const std::string& x) {
      auto same = [&](const ir::Node& m) { return m.name == x; };
      return std::any_of(g_.nodes.begin(), g_.nodes.end(), same) || std::any_of(nodes_.begin(), nodes_.end(), same);
    };
    for (int i = 1; taken(name); ++i) name = base_ + "_" + type + "_" + std::to_string(i);
    n.name = name;
  }
  nodes_.push_back(std::move(n));
  return output;
}

ir::TensorId Rewrite::op_like(const std::string& type, std::vector<ir::TensorId> inputs, ir::TensorId like,
                              ir::Attributes attrs, ir::TensorId output) {
  ir::Shape shape = g_.tensor(like).shape;
  ir::DType dtype = g_.tensor(like).dtype;
  return op(type, std::move(inputs), shape, dtype, std::move(attrs), output);
}

ir::TensorId Rewrite::scalar(float value) { return add_float_constant(g_, base_ + "_const", {}, {value}); }

size_t Rewrite::commit() {
  auto at = g_.nodes.begin() + static_cast<std::ptrdiff_t>(index_);
  at = g_.nodes.erase(at);
  size_t count = nodes_.size();
  g_.nodes.insert(at, std::make_move_iterator(nodes_.begin()), std::make_move_iterator(nodes_.end()));
  nodes_.clear();
  return index_ + count - 1;
}

}  // namespace tigris::passes
