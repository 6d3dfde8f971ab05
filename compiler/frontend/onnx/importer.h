// The ONNX graph importer (graph_import.cpp), shared with the import of If and Loop bodies
// (control_import.cpp): one Importer per GraphProto, a body's Importer knowing its parent so
// that a name the body reads from an outer scope becomes an explicit input of the body.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::frontend::onnx {

ir::Attribute convert_attribute(const ::onnx::AttributeProto& a);  // graph_import.cpp

struct Importer {
  const ::onnx::GraphProto& g;
  Importer* parent = nullptr;  // the graph whose node runs this one (a body), else null
  ir::Graph graph;
  std::map<std::string, ir::TensorId> ids;
  std::map<std::string, const ::onnx::TypeProto*> types;
  std::set<std::string> local;  // names this graph defines (inputs, initializers, node outputs)
  // Outer names read by this body, in order of first read, and the input each became here.
  std::vector<std::pair<std::string, ir::TensorId>> captures;

  explicit Importer(const ::onnx::GraphProto& graph_proto, Importer* outer = nullptr);

  void collect_types();
  void apply_type(ir::Tensor& t);
  // The tensor of `name` in this graph: local, a constant or input captured from an outer
  // scope (a constant is copied in, an activation becomes a new input listed in `captures`).
  ir::TensorId activation(const std::string& name);
  void import_initializers();
  void import_io();
  void import_nodes();
  // A body: types, initializers, inputs and outputs, nodes; `captures` filled.
  void import_body();

  // control_import.cpp: If, Loop and Scan nodes; false for other nodes.
  bool import_control(const ::onnx::NodeProto& n, ir::Node& node);
  bool import_scan(const ::onnx::NodeProto& n, ir::Node& node);
};

}  // namespace tigris::frontend::onnx
