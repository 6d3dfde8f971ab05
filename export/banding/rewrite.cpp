// Building the band operators of one run.
#include "export/banding/rewrite.h"

#include <algorithm>
#include <map>
#include <optional>

#include "export/tflite/edit.h"

namespace tigris::banding {
namespace {

namespace op = tflite::op;
using tflite::Operator;
using tflite::Tensor;

// TFLite operator versions for int8 tensors of the operators the rewrite adds.
constexpr int32_t kInt8Version = 2;

struct BandTensor {
  int32_t index = -1;
  Rows rows;  // rows of the original tensor it holds
};

class BandWriter {
 public:
  BandWriter(tflite::Model& m, const BandPlan& plan, std::vector<BandOp> geo)
      : m_(m), g_(m.subgraphs[0]), plan_(plan), geo_(std::move(geo)) {
    for (size_t i = plan.run.first; i <= plan.run.last; ++i) run_ops_.push_back(g_.operators[i]);
    for (const Operator& o : run_ops_) produced_.push_back(o.outputs[0]);
  }

  // Appends band k's operators; returns its output tensor, or -1 (why set).
  int32_t write_band(int k, std::string* why) {
    std::map<int32_t, Rows> need;
    if (!needed_rows(k, need, why)) return -1;
    std::map<int32_t, BandTensor> band;
    for (size_t j = 0; j < run_ops_.size(); ++j) {
      const Operator& o = run_ops_[j];
      const BandOp& b = geo_[j];
      Operator copy = o;
      Rows out_rows = need.at(o.outputs[0]);
      int32_t source = -1;
      Rows pad_rows{0, 0};  // top, bottom padding as lo, hi
      for (size_t slot : b.row_inputs) {
        int32_t t = o.inputs[slot];
        Rows want = b.kind == BandKind::Elementwise ? out_rows : b.h.input_rows(out_rows);
        Rows clipped{std::max<int64_t>(want.lo, 0), std::min<int64_t>(want.hi, height(t))};
        int32_t held = rows_of(t, clipped, band, need, k);
        copy.inputs[slot] = held;
        source = held;
        pad_rows = {clipped.lo - want.lo, want.hi - clipped.hi};
      }
      if (b.kind == BandKind::Pad) {
        std::vector<int32_t> pads = {b.pad_n[0],
                                     b.pad_n[1],
                                     static_cast<int32_t>(pad_rows.lo),
                                     static_cast<int32_t>(pad_rows.hi),
                                     static_cast<int32_t>(b.w.pad_before),
                                     static_cast<int32_t>(b.w.pad_after),
                                     b.pad_c[0],
                                     b.pad_c[1]};
        if (std::all_of(pads.begin(), pads.end(), [](int32_t p) { return p == 0; })) {
          band[o.outputs[0]] = {source, out_rows};  // nothing to pad in this band
          continue;
        }
        copy.inputs[1] = paddings_constant(pads);
      } else if (b.kind == BandKind::Window) {
        if (pad_rows.lo || pad_rows.hi || b.w.pad_before || b.w.pad_after) copy.inputs[0] = pad(source, pad_rows, b, k);
        set_valid(copy);
      }
      copy.outputs[0] = band_tensor(o.outputs[0], out_rows, "band" + std::to_string(k));
      band[o.outputs[0]] = {copy.outputs[0], out_rows};
      ops_.push_back(std::move(copy));
    }
    return band.at(produced_.back()).index;
  }

  void write_concat(const std::vector<int32_t>& parts) {
    Operator c;
    c.opcode_index = tflite::operator_code_index(m_, op::kConcatenation, kInt8Version);
    c.inputs = parts;
    c.outputs = {produced_.back()};
    c.options = {tflite::OptionsType::Concatenation, tflite::ConcatenationOptions{1, tflite::Activation::None}};
    ops_.push_back(std::move(c));
  }

  std::vector<Operator>& ops() { return ops_; }

 private:
  int64_t height(int32_t t) const { return g_.tensors[static_cast<size_t>(t)].shape[1]; }

  // Backward over the run: the rows of every tensor band k reads.
  bool needed_rows(int k, std::map<int32_t, Rows>& need, std::string* why) const {
    need[produced_.back()] = band_rows(height(produced_.back()), plan_.bands, k);
    for (size_t j = run_ops_.size(); j-- > 0;) {
      const Operator& o = run_ops_[j];
      auto it = need.find(o.outputs[0]);
      if (it == need.end()) return *why = "an operator no band reads", false;
      for (size_t slot : geo_[j].row_inputs) {
        int32_t t = o.inputs[slot];
        Rows want = geo_[j].kind == BandKind::Elementwise ? it->second : geo_[j].h.input_rows(it->second);
        Rows clipped{std::max<int64_t>(want.lo, 0), std::min<int64_t>(want.hi, height(t))};
        if (clipped.empty()) return *why = "a band that reads no row of a tensor", false;
        need[t] = hull(need.count(t) ? need[t] : Rows{}, clipped);
      }
    }
    return true;
  }

  // A tensor holding exactly `rows` of original tensor t: the band's copy, narrowed by
  // a SLICE when the band holds more; external inputs are sliced from the full tensor.
  int32_t rows_of(int32_t t, Rows rows, std::map<int32_t, BandTensor>& band, const std::map<int32_t, Rows>& need,
                  int k) {
    auto it = band.find(t);
    if (it == band.end()) {  // an input from outside the run (run tensors are written first)
      Rows held = need.at(t);
      int32_t index = t;
      if (!(held == Rows{0, height(t)})) index = slice(t, Rows{0, height(t)}, held, "band" + std::to_string(k));
      it = band.emplace(t, BandTensor{index, held}).first;
    }
    if (it->second.rows == rows) return it->second.index;
    return slice(it->second.index, it->second.rows, rows, "band" + std::to_string(k) + "_rows");
  }

  int32_t slice(int32_t source, Rows held, Rows rows, const std::string& tag) {
    const Tensor& s = g_.tensors[static_cast<size_t>(source)];
    std::vector<int32_t> begin(s.shape.size(), 0), size = s.shape;
    begin[1] = static_cast<int32_t>(rows.lo - held.lo);
    size[1] = static_cast<int32_t>(rows.size());
    int32_t original = origin(source);
    Operator o;
    o.opcode_index = tflite::operator_code_index(m_, op::kSlice, kInt8Version);
    o.inputs = {source, int_constant("slice_begin", {static_cast<int32_t>(begin.size())}, begin),
                int_constant("slice_size", {static_cast<int32_t>(size.size())}, size)};
    o.outputs = {band_tensor(original, rows, tag)};
    ops_.push_back(o);
    return o.outputs[0];
  }

  // PAD (zero point) or, in front of a max pool, PADV2 with the lowest int8 value.
  int32_t pad(int32_t source, Rows pad_rows, const BandOp& b, int k) {
    const Tensor& s = g_.tensors[static_cast<size_t>(source)];
    std::vector<int32_t> pads = {0,
                                 0,
                                 static_cast<int32_t>(pad_rows.lo),
                                 static_cast<int32_t>(pad_rows.hi),
                                 static_cast<int32_t>(b.w.pad_before),
                                 static_cast<int32_t>(b.w.pad_after),
                                 0,
                                 0};
    Tensor padded = activation_like(s, short_name(origin(source)) + "/band" + std::to_string(k) + "_pad");
    padded.shape[1] += pads[2] + pads[3];
    padded.shape[2] += pads[4] + pads[5];
    Operator o;
    bool max_pool = b.code == op::kMaxPool2D;
    o.opcode_index = tflite::operator_code_index(m_, max_pool ? op::kPadV2 : op::kPad, kInt8Version);
    o.inputs = {source, paddings_constant(pads)};
    if (max_pool) o.inputs.push_back(lowest_value(s));
    o.outputs = {tflite::add_tensor(g_, std::move(padded))};
    origin_[o.outputs[0]] = origin(source);
    ops_.push_back(o);
    return o.outputs[0];
  }

  static void set_valid(Operator& o) {
    if (auto* c = o.options.get<tflite::Conv2DOptions>()) c->padding = tflite::Padding::Valid;
    if (auto* d = o.options.get<tflite::DepthwiseConv2DOptions>()) d->padding = tflite::Padding::Valid;
    if (auto* p = o.options.get<tflite::Pool2DOptions>()) p->padding = tflite::Padding::Valid;
  }

  // A new activation like original tensor t, holding `rows` of it.
  int32_t band_tensor(int32_t t, Rows rows, const std::string& tag) {
    Tensor n = activation_like(g_.tensors[static_cast<size_t>(t)], short_name(t) + "/" + tag);
    n.shape[1] = static_cast<int32_t>(rows.size());
    int32_t index = tflite::add_tensor(g_, std::move(n));
    origin_[index] = t;
    return index;
  }

  // A new activation tensor of the type and quantization of `like`, with its own empty
  // buffer (as converters give each tensor); the quantization keeps what TFLite Micro reads
  // (scale, zero point, axis) and no min/max range; no shape_signature.
  Tensor activation_like(const Tensor& like, std::string name) {
    Tensor n;
    n.shape = like.shape;
    n.type = like.type;
    n.name = std::move(name);
    n.quantization = kernel_quantization(like);
    n.buffer = tflite::add_buffer(m_, {});
    return n;
  }

  static std::optional<tflite::Quantization> kernel_quantization(const Tensor& like) {
    if (!like.quantization) return std::nullopt;
    tflite::Quantization q = *like.quantization;
    q.min.clear();
    q.max.clear();
    return q;
  }

  // The last part of a converter's ';'-joined tensor name, or t<index>.
  std::string short_name(int32_t t) const {
    const std::string& name = g_.tensors[static_cast<size_t>(t)].name;
    std::string last = name.substr(name.rfind(';') == std::string::npos ? 0 : name.rfind(';') + 1);
    return last.empty() ? "t" + std::to_string(t) : last;
  }

  int32_t origin(int32_t t) const {
    auto it = origin_.find(t);
    return it == origin_.end() ? t : it->second;
  }

  int32_t paddings_constant(const std::vector<int32_t>& pads) { return int_constant("paddings", {4, 2}, pads); }

  // Constants are shared between bands when their values are equal; they have no name.
  int32_t int_constant(const std::string& kind, const std::vector<int32_t>& shape, const std::vector<int32_t>& values) {
    auto key = std::make_pair(kind, values);
    auto it = constants_.find(key);
    if (it != constants_.end()) return it->second;
    int32_t index = tflite::add_int32_constant(m_, g_, "", shape, values);
    constants_.emplace(key, index);
    return index;
  }

  int32_t lowest_value(const Tensor& like) {
    if (lowest_ >= 0) return lowest_;
    Tensor v;
    v.shape = {1};
    v.type = tflite::TensorType::Int8;
    v.quantization = kernel_quantization(like);  // TFLite Micro wants the output's scale and zero point
    v.buffer = tflite::add_buffer(m_, {0x80});
    lowest_ = tflite::add_tensor(g_, std::move(v));
    return lowest_;
  }

  tflite::Model& m_;
  tflite::SubGraph& g_;
  const BandPlan& plan_;
  std::vector<BandOp> geo_;
  std::vector<Operator> run_ops_, ops_;
  std::vector<int32_t> produced_;
  std::map<std::pair<std::string, std::vector<int32_t>>, int32_t> constants_;
  std::map<int32_t, int32_t> origin_;  // band tensor -> original tensor
  int32_t lowest_ = -1;
};

}  // namespace

Rows band_rows(int64_t height, int bands, int k) { return {height * k / bands, height * (k + 1) / bands}; }

std::optional<tflite::Model> rewrite_run(const tflite::Model& m, const BandPlan& plan, std::vector<bool>* generated,
                                         std::string* why) {
  tflite::Model out = m;
  std::vector<BandOp> geo;
  for (size_t i = plan.run.first; i <= plan.run.last; ++i) {
    auto b = band_op(out, out.subgraphs[0], out.subgraphs[0].operators[i], why);
    if (!b) return std::nullopt;
    geo.push_back(*b);
  }
  BandWriter writer(out, plan, std::move(geo));
  std::vector<int32_t> parts;
  for (int k = 0; k < plan.bands; ++k) {
    int32_t part = writer.write_band(k, why);
    if (part < 0) return std::nullopt;
    parts.push_back(part);
  }
  writer.write_concat(parts);
  auto& ops = out.subgraphs[0].operators;
  size_t added = writer.ops().size();
  ops.erase(ops.begin() + static_cast<long>(plan.run.first), ops.begin() + static_cast<long>(plan.run.last) + 1);
  ops.insert(ops.begin() + static_cast<long>(plan.run.first), writer.ops().begin(), writer.ops().end());
  if (generated) {
    generated->resize(m.subgraphs[0].operators.size(), false);
    generated->erase(generated->begin() + static_cast<long>(plan.run.first),
                     generated->begin() + static_cast<long>(plan.run.last) + 1);
    generated->insert(generated->begin() + static_cast<long>(plan.run.first), added, true);
  }
  tflite::drop_unreferenced(out);
  return out;
}

}  // namespace tigris::banding
