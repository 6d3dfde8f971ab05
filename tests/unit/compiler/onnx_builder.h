// Tiny ONNX models built in tests with the protobuf API.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace tigris::test {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 13, const std::string& name = "test") {
    m_.set_ir_version(7);
    auto* op = m_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m_.mutable_graph()->set_name(name);
  }

  // dims: a value > 0, or 0 for a symbolic dimension named by `symbols` (in order).
  void input(const std::string& name, const std::vector<int64_t>& dims, int elem = onnx::TensorProto::FLOAT,
             const std::vector<std::string>& symbols = {}) {
    value_info(m_.mutable_graph()->add_input(), name, dims, elem, symbols);
  }
  // Outputs declare their rank; 0 extents are left for shape inference.
  void output(const std::string& name, const std::vector<int64_t>& dims, int elem = onnx::TensorProto::FLOAT) {
    value_info(m_.mutable_graph()->add_output(), name, dims, elem, {});
  }
  void init(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values) {
    auto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }
  void init_ints(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
    auto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& in, const std::vector<std::string>& out,
                        const std::string& name = "") {
    auto* n = m_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + std::to_string(m_.graph().node_size()) : name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return *n;
  }
  static void attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  onnx::ModelProto& proto() { return m_; }
  std::vector<uint8_t> bytes() const {
    std::string s = m_.SerializeAsString();
    return std::vector<uint8_t>(s.begin(), s.end());
  }

 private:
  static void value_info(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims, int elem,
                         const std::vector<std::string>& symbols) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    size_t sym = 0;
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d > 0)
        dim->set_dim_value(d);
      else if (sym < symbols.size())
        dim->set_dim_param(symbols[sym++]);
    }
  }
  onnx::ModelProto m_;
};

// An initializer `name` of ONNX data type `type` whose raw_data are `bytes` bytes at `data`.
inline void raw(OnnxBuilder& b, const std::string& name, int type, const std::vector<int64_t>& dims, const void* data,
                size_t bytes) {
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(static_cast<const char*>(data), bytes));
}

// A classifier x [1,in] -> Gemm (B [out,in] transposed, every bias `bias`) -> y [1,out], the
// weights (i % period - period / 2) * step: the shape of the channel-band tests.
inline std::vector<uint8_t> gemm_classifier(int64_t in, int64_t out, int period, float step, float bias) {
  OnnxBuilder b;
  b.input("x", {1, in});
  std::vector<float> w(static_cast<size_t>(in * out));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % period) - period / 2) * step;
  b.init("w", {out, in}, w);
  b.init("bias", {out}, std::vector<float>(static_cast<size_t>(out), bias));
  onnx::NodeProto& n = b.node("Gemm", {"x", "w", "bias"}, {"y"}, "fc");
  OnnxBuilder::attr(n, "transB", int64_t{1});
  b.output("y", {1, out});
  return b.bytes();
}

}  // namespace tigris::test
