#include "compiler/report/onnx_inspection.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "compiler/report/format.h"

namespace tigris::report {
namespace {

struct Initializer {
  std::vector<int64_t> dims;
  int dtype = 0;
  uint64_t bytes = 0;
};

uint64_t product(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (const int64_t d : dims) n *= static_cast<uint64_t>(d < 0 ? 0 : d);
  return n;
}

bool fully_known(const OnnxValue& v) {
  return v.shape_known && std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d >= 0; });
}

OnnxValue value_of(const onnx::ValueInfoProto& info) {
  OnnxValue v;
  v.name = info.name();
  if (!info.type().has_tensor_type()) return v;
  const auto& tensor = info.type().tensor_type();
  v.dtype = tensor.elem_type();
  if (!tensor.has_shape()) return v;
  v.shape_known = true;
  for (const auto& dim : tensor.shape().dim()) {
    v.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    v.dim_names.push_back(dim.has_dim_param() ? dim.dim_param() : "");
  }
  return v;
}

Initializer initializer_of(const onnx::TensorProto& t) {
  Initializer init;
  init.dims.assign(t.dims().begin(), t.dims().end());
  init.dtype = t.data_type();
  init.bytes = product(init.dims) * dtype_size(init.dtype);
  return init;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::vector<int64_t> ints(const onnx::NodeProto& node, const std::string& name, size_t n, int64_t fill) {
  const onnx::AttributeProto* a = attribute(node, name);
  if (a && static_cast<size_t>(a->ints_size()) >= n) return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  return std::vector<int64_t>(n, fill);
}

int64_t int_attr(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = attribute(node, name);
  return a && a->has_i() ? a->i() : fallback;
}

std::string string_attr(const onnx::NodeProto& node, const std::string& name) {
  const onnx::AttributeProto* a = attribute(node, name);
  return a && a->has_s() ? a->s() : "";
}

// The shapes the file states: graph inputs, outputs, value_info and initializers.
class Shapes {
 public:
  std::map<std::string, OnnxValue> declared;
  std::map<std::string, Initializer> initializers;

  std::optional<std::vector<int64_t>> known(const std::string& name) const {
    if (const auto it = initializers.find(name); it != initializers.end()) return it->second.dims;
    if (const auto it = declared.find(name); it != declared.end() && fully_known(it->second)) return it->second.shape;
    return std::nullopt;
  }
};

std::optional<uint64_t> conv_macs(const onnx::NodeProto& node, const Shapes& shapes, int x_in, int w_in) {
  if (node.input_size() <= w_in || node.output_size() < 1) return std::nullopt;
  const auto w = shapes.known(node.input(w_in));
  if (!w || w->size() < 3) return std::nullopt;
  const size_t spatial = w->size() - 2;
  const uint64_t per_output = static_cast<uint64_t>((*w)[1]) * product({w->begin() + 2, w->end()});
  if (const auto y = shapes.known(node.output(0)); y && y->size() == w->size()) {
    return product(*y) * per_output;
  }
  const auto x = shapes.known(node.input(x_in));
  if (!x || x->size() != w->size()) return std::nullopt;
  const auto strides = ints(node, "strides", spatial, 1);
  const auto dilations = ints(node, "dilations", spatial, 1);
  const auto pads = ints(node, "pads", 2 * spatial, 0);
  const std::string auto_pad = string_attr(node, "auto_pad");
  uint64_t outputs = static_cast<uint64_t>((*x)[0]) * static_cast<uint64_t>((*w)[0]);
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t in = (*x)[2 + i], k = (*w)[2 + i], s = std::max<int64_t>(strides[i], 1);
    const int64_t span = dilations[i] * (k - 1) + 1;
    int64_t out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in + s - 1) / s;
    } else if (auto_pad == "VALID") {
      out = (in - span) / s + 1;
    } else {
      out = (in + pads[i] + pads[spatial + i] - span) / s + 1;
    }
    if (out <= 0) return std::nullopt;
    outputs *= static_cast<uint64_t>(out);
  }
  return outputs * per_output;
}

std::optional<uint64_t> conv_transpose_macs(const onnx::NodeProto& node, const Shapes& shapes) {
  if (node.input_size() < 2) return std::nullopt;
  const auto x = shapes.known(node.input(0));
  const auto w = shapes.known(node.input(1));
  if (!x || !w || w->size() < 3) return std::nullopt;
  // Every input element feeds (OC / group) x kernel outputs; W is [IC, OC/group, k...].
  return product(*x) * static_cast<uint64_t>((*w)[1]) * product({w->begin() + 2, w->end()});
}

std::optional<uint64_t> gemm_macs(const onnx::NodeProto& node, const Shapes& shapes) {
  if (node.input_size() < 2 || node.output_size() < 1) return std::nullopt;
  const auto b = shapes.known(node.input(1));
  if (!b || b->size() != 2) return std::nullopt;
  const bool trans_b = int_attr(node, "transB", 0) != 0;
  const int64_t k = trans_b ? (*b)[1] : (*b)[0], n = trans_b ? (*b)[0] : (*b)[1];
  int64_t m = -1;
  if (const auto a = shapes.known(node.input(0)); a && a->size() == 2) {
    m = int_attr(node, "transA", 0) ? (*a)[1] : (*a)[0];
  } else if (const auto y = shapes.known(node.output(0)); y && y->size() == 2) {
    m = (*y)[0];
  }
  if (m < 0) return std::nullopt;
  return static_cast<uint64_t>(m) * static_cast<uint64_t>(k) * static_cast<uint64_t>(n);
}

std::optional<uint64_t> matmul_macs(const onnx::NodeProto& node, const Shapes& shapes, int a_in, int b_in) {
  if (node.input_size() <= std::max(a_in, b_in)) return std::nullopt;
  auto a = shapes.known(node.input(a_in));
  auto b = shapes.known(node.input(b_in));
  if (!a || !b || a->empty() || b->empty()) return std::nullopt;
  if (a->size() == 1) a->insert(a->begin(), 1);
  if (b->size() == 1) b->push_back(1);
  const uint64_t m = static_cast<uint64_t>((*a)[a->size() - 2]), k = static_cast<uint64_t>(a->back());
  const uint64_t n = static_cast<uint64_t>(b->back());
  // Leading axes broadcast against each other, aligned from the right.
  uint64_t batch = 1;
  const size_t lead = std::max(a->size(), b->size()) - 2;
  for (size_t i = 0; i < lead; ++i) {
    const int64_t da = i < a->size() - 2 ? (*a)[a->size() - 3 - i] : 1;
    const int64_t db = i < b->size() - 2 ? (*b)[b->size() - 3 - i] : 1;
    batch *= static_cast<uint64_t>(std::max(da, db));
  }
  return batch * m * k * n;
}

// MACs of one operator; 0 for operators without multiply-accumulate work.
std::optional<uint64_t> macs_of(const onnx::NodeProto& node, const Shapes& shapes) {
  const std::string& t = node.op_type();
  if (t == "Conv" || t == "ConvInteger") return conv_macs(node, shapes, 0, 1);
  if (t == "QLinearConv") return conv_macs(node, shapes, 0, 3);
  if (t == "ConvTranspose") return conv_transpose_macs(node, shapes);
  if (t == "Gemm") return gemm_macs(node, shapes);
  if (t == "MatMul" || t == "MatMulInteger") return matmul_macs(node, shapes, 0, 1);
  if (t == "QLinearMatMul") return matmul_macs(node, shapes, 0, 3);
  return uint64_t{0};
}

std::string type_key(const onnx::NodeProto& node) {
  const std::string& d = node.domain();
  return d.empty() || d == "ai.onnx" ? node.op_type() : d + "." + node.op_type();
}

std::string attribute_text(const onnx::AttributeProto& a) {
  std::string v;
  switch (a.type()) {
  case onnx::AttributeProto::INT: v = std::to_string(a.i()); break;
  case onnx::AttributeProto::FLOAT: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(a.f()));
    v = buf;
    break;
  }
  case onnx::AttributeProto::STRING: v = a.s(); break;
  case onnx::AttributeProto::INTS:
    v = "[";
    for (int i = 0; i < a.ints_size(); ++i) v += (i ? "," : "") + std::to_string(a.ints(i));
    v += "]";
    break;
  case onnx::AttributeProto::FLOATS: v = "[" + std::to_string(a.floats_size()) + " floats]"; break;
  case onnx::AttributeProto::TENSOR: v = "<tensor " + format_shape(initializer_of(a.t()).dims) + ">"; break;
  case onnx::AttributeProto::GRAPH: v = "<graph " + std::to_string(a.g().node_size()) + " nodes>"; break;
  default: v = "<...>"; break;
  }
  return a.name() + "=" + v;
}

uint32_t count_subgraphs(const onnx::GraphProto& graph) {
  uint32_t n = 0;
  for (const auto& node : graph.node()) {
    for (const auto& a : node.attribute()) {
      if (a.has_g()) n += 1 + count_subgraphs(a.g());
      for (const auto& g : a.graphs()) n += 1 + count_subgraphs(g);
    }
  }
  return n;
}

void collect_shapes(const onnx::GraphProto& g, Shapes& shapes, OnnxInspection& out) {
  for (const auto& t : g.initializer()) {
    shapes.initializers[t.name()] = initializer_of(t);
    out.initializer_bytes += shapes.initializers[t.name()].bytes;
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      out.external_initializers++;
      std::string location;
      for (const auto& kv : t.external_data()) {
        if (kv.key() == "location") location = kv.value();
      }
      out.external_data.push_back(t.name() + " -> " + location);
    } else {
      out.dense_initializers++;
    }
  }
  out.sparse_initializers = static_cast<uint32_t>(g.sparse_initializer_size());
  for (const auto& s : g.sparse_initializer()) {
    Initializer init;
    init.dims.assign(s.dims().begin(), s.dims().end());
    init.dtype = s.values().data_type();
    init.bytes = product(init.dims) * dtype_size(init.dtype);
    shapes.initializers[s.values().name()] = init;
  }
  for (const auto& v : g.input()) shapes.declared[v.name()] = value_of(v);
  for (const auto& v : g.output()) shapes.declared[v.name()] = value_of(v);
  for (const auto& v : g.value_info()) shapes.declared[v.name()] = value_of(v);
  out.declared_intermediates = static_cast<uint32_t>(g.value_info_size());
}

void collect_steps(const onnx::GraphProto& g, const Shapes& shapes, OnnxInspection& out) {
  std::set<std::string> counted;  // initializers are weighed at their first use
  std::map<std::string, OnnxOpType> types;
  std::vector<std::string> order;
  bool all_known = true;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    OnnxStep step;
    step.index = static_cast<uint32_t>(i);
    step.name = node.name();
    step.type = type_key(node);
    step.inputs.assign(node.input().begin(), node.input().end());
    step.outputs.assign(node.output().begin(), node.output().end());
    for (const auto& in : node.input()) {
      const auto it = shapes.initializers.find(in);
      if (it != shapes.initializers.end() && counted.insert(in).second) step.weight_bytes += it->second.bytes;
    }
    if (node.op_type() == "Constant") {
      for (const auto& a : node.attribute()) {
        if (a.has_t()) {
          const Initializer c = initializer_of(a.t());
          step.weight_bytes += c.bytes;
          out.constants.push_back((node.output_size() ? node.output(0) : node.name()) + "   " + format_shape(c.dims) +
                                  " " + dtype_name(c.dtype));
        }
      }
    }
    if (node.output_size() > 0) {
      if (const auto it = shapes.declared.find(node.output(0)); it != shapes.declared.end()) {
        step.output = it->second;
        if (fully_known(it->second) && dtype_size(it->second.dtype)) {
          step.output_bytes = product(it->second.shape) * dtype_size(it->second.dtype);
        }
      }
    }
    step.macs = macs_of(node, shapes);
    for (const auto& a : node.attribute()) step.attributes.push_back(attribute_text(a));

    OnnxOpType& row = types[step.type];
    if (row.count == 0) {
      row.type = step.type;
      row.macs = uint64_t{0};
      order.push_back(step.type);
    }
    row.count++;
    row.weight_bytes += step.weight_bytes;
    if (!step.macs) row.macs.reset();
    if (row.macs) *row.macs += *step.macs;
    if (step.macs) out.known_macs += *step.macs;
    all_known = all_known && step.macs.has_value();
    out.total_weight_bytes += step.weight_bytes;
    out.steps.push_back(std::move(step));
  }
  std::sort(order.begin(), order.end());
  for (const auto& t : order) out.op_types.push_back(types[t]);
  if (all_known) out.total_macs = out.known_macs;
}

void collect_activations(const onnx::GraphProto& g, const Shapes& shapes, OnnxInspection& out) {
  std::map<std::string, std::string> producer;
  for (const OnnxStep& s : out.steps) {
    for (const auto& o : s.outputs) producer[o] = "step " + std::to_string(s.index) + " " + s.type;
  }
  for (const auto& v : g.input()) producer.emplace(v.name(), "model input");
  std::vector<OnnxActivation> all;
  for (const auto& [name, v] : shapes.declared) {
    if (shapes.initializers.count(name) || !fully_known(v) || dtype_size(v.dtype) == 0) continue;
    const auto p = producer.find(name);
    all.push_back({name, v.shape, v.dtype, product(v.shape) * dtype_size(v.dtype),
                   p == producer.end() ? std::string("-") : p->second});
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  if (all.size() > 5) all.resize(5);
  out.largest_activations = std::move(all);
}

}  // namespace

OnnxInspection inspect_onnx(const std::vector<uint8_t>& bytes, const std::string& file) {
  onnx::ModelProto model;
  const auto corrupt = [&](const std::string& why) {
    return std::runtime_error(file + ": truncated or corrupt ONNX model (" + why + ")");
  };
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) throw corrupt("larger than 2 GiB");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) throw corrupt("protobuf parse failed");
  if (model.ir_version() <= 0) throw corrupt("no IR version");
  if (!model.has_graph()) throw corrupt("no graph");
  if (model.opset_import_size() == 0) throw corrupt("no opset import");

  OnnxInspection out;
  out.file = file;
  out.file_bytes = bytes.size();
  out.ir_version = model.ir_version();
  for (const auto& op : model.opset_import()) {
    out.opsets.emplace_back(op.domain().empty() ? "ai.onnx" : op.domain(), op.version());
  }
  out.producer = model.producer_name();
  out.producer_version = model.producer_version();
  const onnx::GraphProto& g = model.graph();
  out.graph_name = g.name();
  out.num_ops = static_cast<uint32_t>(g.node_size());
  out.num_subgraphs = count_subgraphs(g);
  for (const auto& f : model.functions()) out.functions.push_back(f.domain() + "." + f.name());

  Shapes shapes;
  collect_shapes(g, shapes, out);
  for (const auto& v : g.input()) {
    OnnxValue row = value_of(v);
    row.initializer_default = shapes.initializers.count(v.name()) > 0;
    out.inputs.push_back(std::move(row));
  }
  for (const auto& v : g.output()) out.outputs.push_back(value_of(v));
  collect_steps(g, shapes, out);
  collect_activations(g, shapes, out);
  return out;
}

}  // namespace tigris::report
