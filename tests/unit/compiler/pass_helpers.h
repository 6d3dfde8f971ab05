// Helpers for pass tests: import an ONNX model built in the test and run the pipeline
// up to a named pass (or one pass alone).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/frontend/onnx/onnx_loader.h"
#include "compiler/ir/dump.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"
#include "unit/compiler/onnx_builder.h"

namespace tigris::test {

inline ir::Graph import(const OnnxBuilder& b) {
  std::vector<std::string> warnings;
  return frontend::onnx::load_onnx(b.bytes(), "t.onnx", {}, warnings);
}

// Run the pipeline through pass `last` (inclusive).
inline ir::Graph normalized_until(const OnnxBuilder& b, const std::string& last) {
  ir::Graph g = import(b);
  for (const passes::Pass& p : passes::normalization_pipeline()) {
    p.run(g);
    if (p.name == last) return g;
  }
  throw std::runtime_error("no pass " + last);
}

inline ir::Graph normalized(const OnnxBuilder& b) {
  ir::Graph g = import(b);
  passes::normalize(g);
  return g;
}

inline std::vector<std::string> ops(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const ir::Node& n : g.nodes) out.push_back(n.op);
  return out;
}

inline const ir::Node& node_of(const ir::Graph& g, const std::string& op) {
  for (const ir::Node& n : g.nodes)
    if (n.op == op) return n;
  throw std::runtime_error("no " + op + " in\n" + ir::to_text(g));
}

inline std::vector<float> values(const ir::Graph& g, ir::TensorId id) { return passes::const_floats(g.tensor(id)); }

}  // namespace tigris::test
