#include "compiler/ir/dump.h"

namespace tigris::ir {

namespace {

std::string tensor_text(const Graph& g, TensorId id) {
  if (id < 0) return "-";
  const Tensor& t = g.tensor(id);
  std::string s = t.name + ":" + dtype_name(t.dtype) + "[" + shape_str(t.shape) + "]";
  if (t.constant) s += "c";
  if (t.layout == Layout::ChannelsLast) s += "L";
  if (!t.shape_known) s += "?";
  return s;
}

}  // namespace

std::string to_text(const Graph& g) {
  std::string out = "graph " + g.name + " opset " + std::to_string(g.opset) + "\n";
  for (TensorId id : g.inputs) out += "  input " + tensor_text(g, id) + "\n";
  for (TensorId id : g.outputs) out += "  output " + tensor_text(g, id) + "\n";
  for (const Node& n : g.nodes) {
    out += "  " + n.name + " = " + n.op + "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (i) out += ", ";
      out += tensor_text(g, n.inputs[i]);
    }
    out += ") -> ";
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (i) out += ", ";
      out += tensor_text(g, n.outputs[i]);
    }
    for (const auto& [name, value] : n.attrs.all()) {
      out += ' ';
      out += name;
      std::string v;
      if (const auto* i = std::get_if<int64_t>(&value)) v = std::to_string(*i);
      if (const auto* s = std::get_if<std::string>(&value)) v = *s;
      if (const auto* l = std::get_if<std::vector<int64_t>>(&value)) v = shape_str(*l);
      if (const auto* f = std::get_if<float>(&value)) v = std::to_string(*f);
      if (!v.empty()) {
        out += '=';
        out += v;
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace tigris::ir
