#include "compiler/passes/util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tigris::passes {

using ir::DType;

namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void store(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

double element(DType dtype, const uint8_t* p) {
  switch (dtype) {
  case DType::Float32: return load<float>(p);
  case DType::Float64: return load<double>(p);
  case DType::Int8: return load<int8_t>(p);
  case DType::UInt8: return load<uint8_t>(p);
  case DType::Int16: return load<int16_t>(p);
  case DType::UInt16: return load<uint16_t>(p);
  case DType::Int32: return load<int32_t>(p);
  case DType::UInt32: return load<uint32_t>(p);
  case DType::Int64: return static_cast<double>(load<int64_t>(p));
  case DType::UInt64: return static_cast<double>(load<uint64_t>(p));
  case DType::Bool: return load<uint8_t>(p) ? 1.0 : 0.0;
  default:
    throw ir::CompileError(ir::ErrorKind::Unsupported,
                           "constant of type " + ir::dtype_name(dtype) + " cannot be evaluated");
  }
}

}  // namespace

std::vector<double> const_doubles(const ir::Tensor& t) {
  size_t size = ir::dtype_size(t.dtype);
  std::vector<double> out;
  if (size == 0) return out;
  out.reserve(t.data.size() / size);
  for (size_t off = 0; off + size <= t.data.size(); off += size) out.push_back(element(t.dtype, &t.data[off]));
  return out;
}

std::vector<float> const_floats(const ir::Tensor& t) {
  if (t.dtype == DType::Float32) {
    std::vector<float> out(t.data.size() / 4);
    if (!out.empty()) std::memcpy(out.data(), t.data.data(), out.size() * 4);
    return out;
  }
  std::vector<double> d = const_doubles(t);
  return std::vector<float>(d.begin(), d.end());
}

std::vector<int64_t> const_ints(const ir::Tensor& t) {
  if (t.dtype == DType::Int64) {
    std::vector<int64_t> out(t.data.size() / 8);
    if (!out.empty()) std::memcpy(out.data(), t.data.data(), out.size() * 8);
    return out;
  }
  std::vector<int64_t> out;
  for (double d : const_doubles(t)) out.push_back(static_cast<int64_t>(d));
  return out;
}

std::vector<uint8_t> encode(DType dtype, const std::vector<double>& values) {
  std::vector<uint8_t> out;
  out.reserve(values.size() * ir::dtype_size(dtype));
  for (double v : values) {
    // Integers go through int64 (clamped): converting an out-of-range double is undefined.
    double c = std::isnan(v) ? 0.0 : std::clamp(v, -9.2233720368547748e18, 9.2233720368547748e18);
    int64_t i = static_cast<int64_t>(c);
    switch (dtype) {
    case DType::Float32: store<float>(out, static_cast<float>(v)); break;
    case DType::Float64: store<double>(out, v); break;
    case DType::Int8: store<int8_t>(out, static_cast<int8_t>(i)); break;
    case DType::UInt8: store<uint8_t>(out, static_cast<uint8_t>(i)); break;
    case DType::Int16: store<int16_t>(out, static_cast<int16_t>(i)); break;
    case DType::UInt16: store<uint16_t>(out, static_cast<uint16_t>(i)); break;
    case DType::Int32: store<int32_t>(out, static_cast<int32_t>(i)); break;
    case DType::UInt32: store<uint32_t>(out, static_cast<uint32_t>(i)); break;
    case DType::Int64: store<int64_t>(out, i); break;
    case DType::UInt64: store<uint64_t>(out, static_cast<uint64_t>(i)); break;
    case DType::Bool: store<uint8_t>(out, v != 0.0 ? 1 : 0); break;
    default:
      throw ir::CompileError(ir::ErrorKind::Unsupported, "cannot encode a constant of type " + ir::dtype_name(dtype));
    }
  }
  return out;
}

std::vector<uint8_t> encode_floats(const std::vector<float>& values) {
  std::vector<uint8_t> out(values.size() * 4);
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

bool is_const(const ir::Graph& g, ir::TensorId id) { return id >= 0 && g.tensor(id).constant; }

ir::TensorId add_constant(ir::Graph& g, const std::string& base, DType dtype, const ir::Shape& shape,
                          std::vector<uint8_t> data) {
  ir::Tensor t;
  t.name = g.unique_tensor_name(base);
  t.dtype = dtype;
  t.shape = shape;
  t.constant = true;
  t.data = std::move(data);
  return g.add_tensor(std::move(t));
}

ir::TensorId add_float_constant(ir::Graph& g, const std::string& base, const ir::Shape& shape,
                                const std::vector<float>& values) {
  return add_constant(g, base, DType::Float32, shape, encode_floats(values));
}

ir::TensorId add_activation(ir::Graph& g, const std::string& base, DType dtype, const ir::Shape& shape) {
  ir::Tensor t;
  t.name = g.unique_tensor_name(base);
  t.dtype = dtype;
  t.shape = shape;
  return g.add_tensor(std::move(t));
}

int64_t normalize_axis(int64_t axis, int64_t rank, const ir::Node& node) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1))
    throw node_error(node, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return a;
}

void erase_nodes(ir::Graph& g, const std::vector<char>& remove) {
  std::vector<ir::Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!remove[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

bool single_consumer(const ir::Graph& g, ir::TensorId id, int consumer) {
  if (g.is_output(id)) return false;
  std::vector<int> c = g.consumers(id);
  return c.size() == 1 && c[0] == consumer;
}

ir::CompileError node_error(const ir::Node& node, const std::string& what) {
  return ir::CompileError(ir::ErrorKind::Invalid, node.op + " '" + node.name + "': " + what, {node.name});
}

std::vector<uint8_t> transpose_data(const std::vector<uint8_t>& data, const ir::Shape& shape,
                                    const std::vector<int64_t>& perm, size_t elem_size) {
  ir::Shape out_shape = ir::permute_shape(shape, perm);
  std::vector<int64_t> in_strides = ir::strides_of(shape);
  size_t rank = shape.size();
  int64_t count = ir::num_elements(shape);
  std::vector<uint8_t> out(data.size());
  std::vector<int64_t> idx(rank, 0);  // index into the output
  for (int64_t o = 0; o < count; ++o) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += idx[d] * in_strides[static_cast<size_t>(perm[d])];
    std::memcpy(&out[static_cast<size_t>(o) * elem_size], &data[static_cast<size_t>(src) * elem_size], elem_size);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

ir::Shape reshape_target(const ir::Node& n, const ir::Shape& in, const std::vector<int64_t>& spec, bool allowzero) {
  ir::Shape out;
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) throw node_error(n, "shape entry 0 at axis " + std::to_string(i) + " has no input extent");
      d = in[i];
    }
    if (d == -1) {
      if (infer_at >= 0) throw node_error(n, "more than one -1 in the target shape");
      infer_at = static_cast<int64_t>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) throw node_error(n, "negative extent in the target shape");
    known *= d;
    out.push_back(d);
  }
  int64_t total = ir::num_elements(in);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) throw node_error(n, "cannot infer the -1 extent");
    out[static_cast<size_t>(infer_at)] = total / known;
  } else if (known != total) {
    throw node_error(n, "target shape " + ir::shape_str(out) + " does not hold " + std::to_string(total) + " elements");
  }
  return out;
}

}  // namespace tigris::passes
