// Sequence and optional values of static length -> tensors, on the ModelProto before import.
//
// A plan holds tensors only, so a sequence whose length and positions are known at compile
// time is tracked here as the list of its elements' names and every sequence operator is
// replaced by tensor operators (or by nothing): SequenceConstruct/Empty/Insert/Erase build
// lists, SequenceAt becomes an Identity, SequenceLength a Constant, SplitToSequence a Split
// (and Squeeze), ConcatFromSequence a Concat (Unsqueeze first with new_axis), SequenceMap its
// body once per element, a Loop carrying a sequence its body once per iteration (a constant
// trip count). An optional whose presence is known is tracked the same way. An If whose
// branches give sequences of one length gets one output per element; one on a known condition
// is replaced by its branch. A graph output
// holding a sequence becomes one output per element named "<output>[i]"; an empty optional
// output disappears. Whatever is not static is refused with one line naming the node.
#include <onnx/onnx_pb.h>

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "compiler/frontend/onnx/onnx_loader.h"
#include "compiler/frontend/onnx/tensor_proto.h"
#include "compiler/ir/error.h"

namespace tigris::frontend::onnx {

namespace {

using ir::CompileError;
using ir::ErrorKind;

// A tracked value: a sequence (its elements), or an optional holding nothing, a tensor
// (elems[0]) or a sequence.
struct SeqValue {
  bool optional = false;
  bool present = true;
  bool sequence = false;
  std::vector<std::string> elems;
};

bool is_sequence_op(const std::string& op) {
  static const std::set<std::string> ops = {"SequenceEmpty",   "SequenceConstruct",  "SequenceInsert",
                                            "SequenceErase",   "SequenceAt",         "SequenceLength",
                                            "SplitToSequence", "ConcatFromSequence", "SequenceMap",
                                            "Optional",        "OptionalHasElement", "OptionalGetElement"};
  return ops.count(op) > 0;
}

bool is_sequence_or_optional_type(const ::onnx::TypeProto& t) { return t.has_sequence_type() || t.has_optional_type(); }

std::string seq_node_label(const ::onnx::NodeProto& n) {
  if (!n.name().empty()) return n.op_type() + " '" + n.name() + "'";
  return n.op_type() + " '" + (n.output_size() ? n.output(0) : std::string("?")) + "'";
}

[[noreturn]] void refuse_seq_node(const ::onnx::NodeProto& n, const std::string& why) {
  throw CompileError(ErrorKind::Unsupported, seq_node_label(n) + ": " + why, {n.name()});
}

class SeqLowering {
 public:
  SeqLowering(::onnx::GraphProto& g, int64_t opset, SeqLowering* outer, std::set<std::string>* names)
      : g_(g), opset_(opset), outer_(outer), names_(names) {
    for (const auto& vi : g.input()) types_[vi.name()] = vi.type();
    for (const auto& vi : g.value_info()) types_[vi.name()] = vi.type();
    for (const auto& vi : g.output()) types_[vi.name()] = vi.type();
    for (const auto& t : g.initializer()) initializers_[t.name()] = &t;  // weights not copied
    collect_names(g);
  }

  // Lowers the graph; returns the values of its outputs, in order (nullopt: a tensor).
  std::vector<std::optional<SeqValue>> run(bool is_main) {
    for (const auto& vi : g_.input())
      if (is_sequence_or_optional_type(vi.type()))
        throw CompileError(ErrorKind::Unsupported,
                           "graph input '" + vi.name() +
                               "' is a sequence or optional: its length or presence is not known at compile "
                               "time (give each element as an input of its own)",
                           {}, {vi.name()});
    ::google::protobuf::RepeatedPtrField<::onnx::NodeProto> nodes;
    nodes.Swap(g_.mutable_node());
    for (auto& n : nodes) handle(n);
    return finish_outputs(is_main);
  }

  bool changed = false;

 private:
  ::onnx::GraphProto& g_;
  int64_t opset_;
  SeqLowering* outer_;
  std::set<std::string>* names_;
  std::map<std::string, ::onnx::TypeProto> types_;
  std::map<std::string, const ::onnx::TensorProto*> initializers_;  // stable: RepeatedPtrField
  std::map<std::string, ::onnx::TensorProto> constants_;            // made here, or integer Constant nodes
  std::map<std::string, SeqValue> values_;

  void collect_names(const ::onnx::GraphProto& g) {
    for (const auto& vi : g.input()) names_->insert(vi.name());
    for (const auto& t : g.initializer()) names_->insert(t.name());
    for (const auto& n : g.node()) {
      for (const auto& o : n.output()) names_->insert(o);
      for (const auto& a : n.attribute())
        if (a.has_g()) collect_names(a.g());
    }
  }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; names_->count(name); ++i) name = base + "_" + std::to_string(i);
    names_->insert(name);
    return name;
  }

  const SeqValue* find(const std::string& name) const {
    auto it = values_.find(name);
    if (it != values_.end()) return &it->second;
    return outer_ ? outer_->find(name) : nullptr;
  }
  const ::onnx::TensorProto* constant(const std::string& name) const {
    auto it = constants_.find(name);
    if (it != constants_.end()) return &it->second;
    auto init = initializers_.find(name);
    if (init != initializers_.end()) return init->second;
    return outer_ ? outer_->constant(name) : nullptr;
  }
  const ::onnx::TypeProto* type(const std::string& name) const {
    auto it = types_.find(name);
    if (it != types_.end()) return &it->second;
    return outer_ ? outer_->type(name) : nullptr;
  }

  // An int64 list held by a constant operand; nullopt when the operand is computed at run time.
  std::optional<std::vector<int64_t>> ints(const std::string& name) const {
    const ::onnx::TensorProto* t = constant(name);
    if (!t) return std::nullopt;
    ir::TensorValue v = tensor_from_proto(*t);
    std::vector<int64_t> out;
    if (v.dtype == ir::DType::Int64) {
      out.resize(v.data.size() / 8);
      std::memcpy(out.data(), v.data.data(), out.size() * 8);
    } else if (v.dtype == ir::DType::Int32) {
      std::vector<int32_t> w(v.data.size() / 4);
      std::memcpy(w.data(), v.data.data(), w.size() * 4);
      out.assign(w.begin(), w.end());
    } else {
      return std::nullopt;
    }
    return out;
  }

  ::onnx::NodeProto& emit(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    ::onnx::NodeProto* n = g_.add_node();
    n->set_op_type(op);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    changed = true;
    return *n;
  }

  std::string int64_constant(const std::string& base, const std::vector<int64_t>& v, bool scalar) {
    ::onnx::TensorProto t;
    t.set_name(fresh(base));
    t.set_data_type(::onnx::TensorProto::INT64);
    if (!scalar) t.add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t.add_int64_data(x);
    *g_.add_initializer() = t;
    constants_[t.name()] = t;
    return t.name();
  }

  // Operand `i` of a position: the constant index normalised to [0, limit], or refusal.
  int64_t position(const ::onnx::NodeProto& n, int i, int64_t len, int64_t limit) {
    const std::string& name = n.input(i);
    std::optional<std::vector<int64_t>> v = ints(name);
    if (!v || v->size() != 1)
      refuse_seq_node(
          n, "operand '" + name +
                 "' is computed at run time: a sequence position must be a constant (plans hold tensors only)");
    int64_t p = (*v)[0] < 0 ? (*v)[0] + len : (*v)[0];
    if (p < 0 || p > limit) refuse_seq_node(n, "position " + std::to_string((*v)[0]) + " is outside the sequence");
    return p;
  }

  const SeqValue& operand(const ::onnx::NodeProto& n, int i, bool want_sequence) {
    const SeqValue* v = i < n.input_size() ? find(n.input(i)) : nullptr;
    if (!v) refuse_seq_node(n, "operand " + std::to_string(i) + " is not a sequence known at compile time");
    if (want_sequence && (v->optional || !v->sequence))
      refuse_seq_node(n, "operand '" + n.input(i) + "' is not a sequence known at compile time");
    return *v;
  }

  void identity(const std::string& from, const std::string& to) { emit("Identity", {from}, {to}); }

  void handle(::onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    const bool std_domain = n.domain().empty() || n.domain() == "ai.onnx";
    bool reads_tracked = false;
    for (const auto& in : n.input()) reads_tracked = reads_tracked || (!in.empty() && find(in));
    if (std_domain && op == "If") return lower_if(n);
    // Not of a known presence (OptionalHasElement) stays known: an If on it is resolved.
    if (std_domain && op == "Not" && n.input_size() == 1 && constant(n.input(0)) &&
        constant(n.input(0))->data_type() == ::onnx::TensorProto::BOOL) {
      constants_[n.output(0)] = *constant(n.input(0));
      constants_[n.output(0)].set_name(n.output(0));
      ir::TensorValue v = tensor_from_proto(constants_[n.output(0)]);
      constants_[n.output(0)].clear_raw_data();
      constants_[n.output(0)].clear_int32_data();
      for (uint8_t b : v.data) constants_[n.output(0)].add_int32_data(b ? 0 : 1);
    }
    if (std_domain && op == "Constant")
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t() && n.output_size() == 1 &&
            (a.t().data_type() == ::onnx::TensorProto::INT64 || a.t().data_type() == ::onnx::TensorProto::INT32 ||
             a.t().data_type() == ::onnx::TensorProto::BOOL)) {  // positions, counts, conditions
          constants_[n.output(0)] = a.t();
          constants_[n.output(0)].set_name(n.output(0));
        }
    if (!std_domain || (!is_sequence_op(op) && !(op == "Identity" && reads_tracked))) {
      if (reads_tracked && std_domain && op == "Loop") return unroll_loop(n);
      for (const auto& in : n.input())
        if (reads_tracked && std_domain && op == "Scan" && !in.empty() && find(in))
          refuse_seq_node(n, "carries the sequence or optional '" + in +
                                 "' through its iterations: a loop is not unrolled, so its length would be decided at "
                                 "run time (plans hold tensors only)");
      if (reads_tracked)
        refuse_seq_node(n,
                        "reads a sequence or optional value, which only the sequence operators take (plans hold "
                        "tensors only)");
      for (auto& a : *n.mutable_attribute())
        if (a.has_g()) lower_body(n, *a.mutable_g());
      *g_.add_node() = std::move(n);
      return;
    }
    changed = true;
    const std::string out = n.output_size() ? n.output(0) : std::string();
    if (op == "Identity") {
      values_[out] = *find(n.input(0));
    } else if (op == "SequenceEmpty") {
      values_[out] = SeqValue{false, true, true, {}};
    } else if (op == "SequenceConstruct") {
      values_[out] = SeqValue{false, true, true, {n.input().begin(), n.input().end()}};
    } else if (op == "SequenceInsert") {
      SeqValue s = operand(n, 0, true);
      const int64_t len = static_cast<int64_t>(s.elems.size());
      const int64_t p = n.input_size() > 2 && !n.input(2).empty() ? position(n, 2, len, len) : len;
      s.elems.insert(s.elems.begin() + p, n.input(1));
      values_[out] = s;
    } else if (op == "SequenceErase") {
      SeqValue s = operand(n, 0, true);
      const int64_t len = static_cast<int64_t>(s.elems.size());
      if (len == 0) refuse_seq_node(n, "erases from an empty sequence");
      const int64_t p = n.input_size() > 1 && !n.input(1).empty() ? position(n, 1, len, len - 1) : len - 1;
      s.elems.erase(s.elems.begin() + p);
      values_[out] = s;
    } else if (op == "SequenceAt") {
      const SeqValue& s = operand(n, 0, true);
      const int64_t len = static_cast<int64_t>(s.elems.size());
      if (len == 0) refuse_seq_node(n, "reads an empty sequence");
      identity(s.elems[static_cast<size_t>(position(n, 1, len, len - 1))], out);
    } else if (op == "SequenceLength") {
      ::onnx::NodeProto& c = emit("Constant", {}, {out});
      ::onnx::AttributeProto* a = c.add_attribute();
      a->set_name("value");
      a->set_type(::onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
      a->mutable_t()->add_int64_data(static_cast<int64_t>(operand(n, 0, true).elems.size()));
      constants_[out] = a->t();
      constants_[out].set_name(out);
    } else if (op == "SplitToSequence") {
      split_to_sequence(n);
    } else if (op == "ConcatFromSequence") {
      concat_from_sequence(n);
    } else if (op == "SequenceMap") {
      sequence_map(n);
    } else if (op == "Optional") {
      SeqValue v{true, false, false, {}};
      if (n.input_size() > 0 && !n.input(0).empty()) {
        v.present = true;
        if (const SeqValue* inner = find(n.input(0))) {
          if (inner->optional) refuse_seq_node(n, "an optional of an optional");
          v.sequence = true;
          v.elems = inner->elems;
        } else {
          v.elems = {n.input(0)};
        }
      }
      values_[out] = v;
    } else if (op == "OptionalHasElement") {
      bool has = n.input_size() > 0 && !n.input(0).empty();
      if (has)
        if (const SeqValue* v = find(n.input(0))) has = !v->optional || v->present;
      ::onnx::NodeProto& c = emit("Constant", {}, {out});
      ::onnx::AttributeProto* a = c.add_attribute();
      a->set_name("value");
      a->set_type(::onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(::onnx::TensorProto::BOOL);
      a->mutable_t()->add_int32_data(has ? 1 : 0);
      constants_[out] = a->t();
      constants_[out].set_name(out);
    } else if (op == "OptionalGetElement") {
      const SeqValue* v = n.input_size() > 0 ? find(n.input(0)) : nullptr;
      if (!v) {
        identity(n.input(0), out);  // a tensor (opset 18 takes one): itself
      } else if (v->optional && !v->present) {
        refuse_seq_node(n, "the optional '" + n.input(0) + "' holds no value");
      } else if (!v->optional || v->sequence) {
        values_[out] = SeqValue{false, true, true, v->elems};
      } else {
        identity(v->elems[0], out);
      }
    }
  }

  // A Loop or Scan body: lowered on its own; sequences may not cross its boundary.
  void lower_body(const ::onnx::NodeProto& n, ::onnx::GraphProto& body) {
    for (const auto& vi : body.output())
      if (is_sequence_or_optional_type(vi.type()))
        refuse_seq_node(n, "its body gives the sequence or optional '" + vi.name() +
                               "', whose length would be decided at run time (plans hold tensors only)");
    for (const auto& vi : body.input())
      if (is_sequence_or_optional_type(vi.type()))
        refuse_seq_node(n, "carries the sequence or optional '" + vi.name() +
                               "', whose length would be decided at run time (plans hold tensors only)");
    SeqLowering inner(body, opset_, this, names_);
    inner.run(false);
    changed = changed || inner.changed;
  }

  std::optional<int64_t> dim(const std::string& name, int64_t axis, int64_t* rank) const {
    if (const ::onnx::TensorProto* t = constant(name)) {
      *rank = t->dims_size();
      if (axis < 0) axis += *rank;
      if (axis < 0 || axis >= *rank) return std::nullopt;
      return t->dims(static_cast<int>(axis));
    }
    const ::onnx::TypeProto* ty = type(name);
    if (!ty || !ty->has_tensor_type() || !ty->tensor_type().has_shape()) return std::nullopt;
    const auto& shape = ty->tensor_type().shape();
    *rank = shape.dim_size();
    if (axis < 0) axis += *rank;
    if (axis < 0 || axis >= *rank || !shape.dim(static_cast<int>(axis)).has_dim_value()) return std::nullopt;
    return shape.dim(static_cast<int>(axis)).dim_value();
  }

  void axes_operand(::onnx::NodeProto& node, int64_t axis) {
    if (opset_ >= 13) {
      node.add_input(int64_constant("axes", {axis}, false));
    } else {
      ::onnx::AttributeProto* a = node.add_attribute();
      a->set_name("axes");
      a->set_type(::onnx::AttributeProto::INTS);
      a->add_ints(axis);
    }
  }

  int64_t int_attr(const ::onnx::NodeProto& n, const std::string& name, int64_t dflt) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.i();
    return dflt;
  }

  void split_to_sequence(const ::onnx::NodeProto& n) {
    const int64_t axis = int_attr(n, "axis", 0);
    const bool keepdims = int_attr(n, "keepdims", 1) != 0;
    int64_t rank = 0;
    std::optional<int64_t> extent = dim(n.input(0), axis, &rank);
    if (!extent) refuse_seq_node(n, "the extent of '" + n.input(0) + "' along the split axis is not static");
    std::vector<int64_t> sizes;
    const bool has_split = n.input_size() > 1 && !n.input(1).empty();
    if (has_split) {
      std::optional<std::vector<int64_t>> s = ints(n.input(1));
      if (!s) refuse_seq_node(n, "operand '" + n.input(1) + "' is computed at run time: the split must be a constant");
      const ::onnx::TensorProto* t = constant(n.input(1));
      if (t->dims_size() == 0) {  // a scalar: chunks of that size, the last one smaller
        if ((*s)[0] <= 0) refuse_seq_node(n, "a split size below 1");
        for (int64_t at = 0; at < *extent; at += (*s)[0]) sizes.push_back(std::min((*s)[0], *extent - at));
      } else {
        sizes = *s;
      }
    } else {
      sizes.assign(static_cast<size_t>(*extent), 1);
    }
    std::vector<std::string> parts;
    for (size_t i = 0; i < sizes.size(); ++i) parts.push_back(fresh(n.output(0) + "[" + std::to_string(i) + "]"));
    ::onnx::NodeProto& split = emit("Split", {n.input(0)}, parts);
    ::onnx::AttributeProto* a = split.add_attribute();
    a->set_name("axis");
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(axis);
    if (opset_ >= 13) {
      split.add_input(int64_constant("split", sizes, false));
    } else {
      ::onnx::AttributeProto* s = split.add_attribute();
      s->set_name("split");
      s->set_type(::onnx::AttributeProto::INTS);
      for (int64_t x : sizes) s->add_ints(x);
    }
    if (!has_split && !keepdims) {  // without a split, keepdims=0 drops the split axis
      for (auto& p : parts) {
        std::string squeezed = fresh(p + "_squeezed");
        axes_operand(emit("Squeeze", {p}, {squeezed}), axis);
        p = squeezed;
      }
    }
    values_[n.output(0)] = SeqValue{false, true, true, parts};
  }

  void concat_from_sequence(const ::onnx::NodeProto& n) {
    const SeqValue& s = operand(n, 0, true);
    if (s.elems.empty()) refuse_seq_node(n, "concatenates an empty sequence");
    const int64_t axis = int_attr(n, "axis", 0);
    std::vector<std::string> parts = s.elems;
    if (int_attr(n, "new_axis", 0) != 0)
      for (auto& p : parts) {
        std::string unsqueezed = fresh(p + "_unsqueezed");
        axes_operand(emit("Unsqueeze", {p}, {unsqueezed}), axis);
        p = unsqueezed;
      }
    ::onnx::NodeProto& c = emit("Concat", parts, {n.output(0)});
    ::onnx::AttributeProto* a = c.add_attribute();
    a->set_name("axis");
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(axis);
  }

  // Renames references to `rename`'s names inside a nested graph (and its own nested graphs),
  // except names the nested graph defines itself.
  static void rename_refs(::onnx::GraphProto& g, const std::map<std::string, std::string>& rename) {
    std::set<std::string> own;
    for (const auto& vi : g.input()) own.insert(vi.name());
    for (const auto& t : g.initializer()) own.insert(t.name());
    for (const auto& n : g.node())
      for (const auto& o : n.output()) own.insert(o);
    auto fix = [&](std::string* s) {
      auto it = rename.find(*s);
      if (it != rename.end() && !own.count(*s)) *s = it->second;
    };
    for (auto& n : *g.mutable_node()) {
      for (auto& s : *n.mutable_input()) fix(&s);
      for (auto& a : *n.mutable_attribute())
        if (a.has_g()) rename_refs(*a.mutable_g(), rename);
    }
    for (auto& vi : *g.mutable_output()) fix(vi.mutable_name());
  }

  // One copy of `body` in this graph: its inputs bound by `rename`, its own names given
  // `prefix` and `tag`, its nodes lowered in turn. `rename` ends holding every body name.
  void inline_body(const ::onnx::GraphProto& body, std::map<std::string, std::string>& rename,
                   const std::string& prefix, const std::string& tag) {
    for (const auto& t : body.initializer()) {
      ::onnx::TensorProto c = t;
      c.set_name(fresh(prefix + t.name() + tag));
      rename[t.name()] = c.name();
      constants_[c.name()] = c;
      *g_.add_initializer() = c;
    }
    for (const auto& bn : body.node())
      for (const auto& o : bn.output())
        if (!o.empty()) rename[o] = fresh(prefix + o + tag);
    for (const auto& bn : body.node()) {
      ::onnx::NodeProto copy = bn;
      copy.clear_name();
      for (auto& s : *copy.mutable_input())
        if (rename.count(s)) s = rename[s];
      for (auto& s : *copy.mutable_output())
        if (rename.count(s)) s = rename[s];
      for (auto& a : *copy.mutable_attribute())
        if (a.has_g()) rename_refs(*a.mutable_g(), rename);
      handle(copy);
    }
  }

  // The body once per element, its own names suffixed "[i]"; outer names stay.
  void sequence_map(const ::onnx::NodeProto& n) {
    const ::onnx::GraphProto* body = nullptr;
    for (const auto& a : n.attribute())
      if (a.name() == "body" && a.has_g()) body = &a.g();
    if (!body) refuse_seq_node(n, "no body");
    const size_t len = operand(n, 0, true).elems.size();
    for (int k = 1; k < n.input_size(); ++k) {
      const SeqValue* v = find(n.input(k));
      if (v && (v->optional || !v->sequence || v->elems.size() != len))
        refuse_seq_node(n, "operand '" + n.input(k) + "' is not a sequence of the first one's length");
    }
    std::vector<std::vector<std::string>> results(static_cast<size_t>(body->output_size()));
    for (size_t i = 0; i < len; ++i) {
      const std::string tag = "[" + std::to_string(i) + "]";
      std::map<std::string, std::string> rename;
      for (int k = 0; k < body->input_size() && k < n.input_size(); ++k) {
        const SeqValue* v = find(n.input(k));
        rename[body->input(k).name()] = v ? v->elems[i] : n.input(k);
      }
      inline_body(*body, rename, n.output(0) + "/", tag);
      for (int j = 0; j < body->output_size(); ++j) {
        const std::string& o = body->output(j).name();
        results[static_cast<size_t>(j)].push_back(rename.count(o) ? rename[o] : o);
      }
    }
    for (int j = 0; j < n.output_size() && j < body->output_size(); ++j)
      values_[n.output(j)] = SeqValue{false, true, true, results[static_cast<size_t>(j)]};
  }

  // A Loop carrying a sequence or optional: unrolled when its trip count is a constant and its
  // condition stays true (the iteration count is then known), the body inlined once per
  // iteration with its iteration number a constant.
  void unroll_loop(const ::onnx::NodeProto& n) {
    const ::onnx::GraphProto* body = nullptr;
    for (const auto& a : n.attribute())
      if (a.name() == "body" && a.has_g()) body = &a.g();
    const int carried = n.input_size() - 2;
    if (!body || carried < 0 || body->input_size() != carried + 2 || body->output_size() < carried + 1)
      refuse_seq_node(n, "a malformed body");
    if (body->output_size() > carried + 1)
      refuse_seq_node(n, "scan outputs of a loop carrying a sequence are not unrolled (plans hold tensors only)");
    if (n.input(0).empty())
      refuse_seq_node(n, "carries a sequence without a trip count: its length would be decided at run time");
    std::optional<std::vector<int64_t>> m = ints(n.input(0));
    if (!m || m->size() != 1)
      refuse_seq_node(n,
                      "operand '" + n.input(0) +
                          "' is computed at run time: a loop carrying a sequence is unrolled, which needs a constant "
                          "trip count (plans hold tensors only)");
    if ((*m)[0] > 1024)
      refuse_seq_node(
          n, "a loop carrying a sequence is unrolled, and " + std::to_string((*m)[0]) + " iterations are too many");
    std::string cond = n.input(1);
    if (!cond.empty() && !truth(cond))
      refuse_seq_node(n,
                      "operand '" + cond +
                          "' is computed at run time: a loop carrying a sequence is unrolled, which needs a constant "
                          "true condition");
    // The body's condition: its input passed on, or a constant true.
    const std::string& cond_out = body->output(0).name();
    bool stays = cond_out == body->input(1).name();
    for (const auto& bn : body->node())
      if (bn.output_size() == 1 && bn.output(0) == cond_out) {
        stays = bn.op_type() == "Identity" && bn.input(0) == body->input(1).name();
        if (bn.op_type() == "Constant")
          for (const auto& a : bn.attribute())
            stays =
                stays || (a.name() == "value" && a.has_t() && tensor_from_proto(a.t()).data == std::vector<uint8_t>{1});
      }
    if (!stays)
      refuse_seq_node(n,
                      "its body computes its condition: a loop carrying a sequence is unrolled, which needs the number "
                      "of iterations known at compile time");
    if (cond.empty()) cond = bool_constant("loop_go", true);
    std::vector<std::string> cur(n.input().begin() + 2, n.input().end());
    for (int64_t i = 0; i < (*m)[0]; ++i) {
      std::map<std::string, std::string> rename;
      rename[body->input(0).name()] = int64_constant("loop_iter", {i}, true);
      rename[body->input(1).name()] = cond;
      for (int k = 0; k < carried; ++k) rename[body->input(k + 2).name()] = cur[static_cast<size_t>(k)];
      inline_body(*body, rename, "loop/", "[" + std::to_string(i) + "]");
      for (int k = 0; k < carried; ++k) {
        const std::string& o = body->output(k + 1).name();
        cur[static_cast<size_t>(k)] = rename.count(o) ? rename[o] : o;
      }
    }
    for (int k = 0; k < carried && k < n.output_size(); ++k) {
      if (n.output(k).empty()) continue;
      if (const SeqValue* v = find(cur[static_cast<size_t>(k)]))
        values_[n.output(k)] = *v;
      else
        identity(cur[static_cast<size_t>(k)], n.output(k));
    }
  }

  std::string bool_constant(const std::string& base, bool v) {
    ::onnx::TensorProto t;
    t.set_name(fresh(base));
    t.set_data_type(::onnx::TensorProto::BOOL);
    t.add_int32_data(v ? 1 : 0);
    *g_.add_initializer() = t;
    constants_[t.name()] = t;
    return t.name();
  }

  static bool gives_tracked(const ::onnx::NodeProto& n) {
    for (const auto& a : n.attribute())
      if (a.has_g())
        for (const auto& vi : a.g().output())
          if (is_sequence_or_optional_type(vi.type())) return true;
    return false;
  }

  bool truth(const std::string& name) const {
    const ::onnx::TensorProto* t = constant(name);
    if (!t || t->data_type() != ::onnx::TensorProto::BOOL) return false;
    ir::TensorValue v = tensor_from_proto(*t);
    return v.data.size() == 1 && v.data[0] != 0;
  }

  // If: each branch lowered; a branch output holding a sequence (or a present optional)
  // becomes one output per element, the If's result the list of those outputs.
  void lower_if(::onnx::NodeProto& n) {
    // A condition known at compile time (OptionalHasElement of a tracked optional, say) that
    // picks a branch giving sequences or optionals: that branch inlined, the If gone.
    const ::onnx::TensorProto* c = constant(n.input(0));
    if (c && c->data_type() == ::onnx::TensorProto::BOOL && gives_tracked(n)) {
      const std::string which = truth(n.input(0)) ? "then_branch" : "else_branch";
      for (const auto& a : n.attribute())
        if (a.name() == which && a.has_g()) {
          std::map<std::string, std::string> rename;
          inline_body(a.g(), rename, n.output(0) + "/", "");
          for (int k = 0; k < n.output_size() && k < a.g().output_size(); ++k) {
            const std::string& o = a.g().output(k).name();
            const std::string from = rename.count(o) ? rename[o] : o;
            if (const SeqValue* v = find(from))
              values_[n.output(k)] = *v;
            else
              identity(from, n.output(k));
          }
          return;
        }
    }
    std::vector<std::vector<std::optional<SeqValue>>> outs;
    for (auto& a : *n.mutable_attribute()) {
      if (!a.has_g()) continue;
      SeqLowering branch(*a.mutable_g(), opset_, this, names_);
      outs.push_back(branch.run(false));
      changed = changed || branch.changed;
    }
    ::onnx::NodeProto copy = n;
    copy.clear_output();
    for (int k = 0; k < n.output_size(); ++k) {
      const std::optional<SeqValue>& a = outs[0].at(static_cast<size_t>(k));
      const std::optional<SeqValue>& b = outs[1].at(static_cast<size_t>(k));
      if (!a && !b) {
        copy.add_output(n.output(k));
        continue;
      }
      if (a && b && a->optional && b->optional && a->present != b->present)
        refuse_seq_node(n, "operand '" + n.input(0) + "' is computed at run time: output '" + n.output(k) +
                               "' is an optional present in one branch only, so whether it holds a value would be "
                               "decided at run time (plans hold tensors only)");
      if (!a || !b || a->optional != b->optional || a->sequence != b->sequence)
        refuse_seq_node(n, "its branches give output '" + n.output(k) + "' as values of different kinds");
      if (a->elems.size() != b->elems.size())
        refuse_seq_node(n, "its branches give sequences of " + std::to_string(a->elems.size()) + " and " +
                               std::to_string(b->elems.size()) + " elements for '" + n.output(k) +
                               "': the length would be decided at run time (plans hold tensors only)");
      SeqValue v = *a;
      for (size_t i = 0; i < v.elems.size(); ++i) {
        v.elems[i] = fresh(n.output(k) + "[" + std::to_string(i) + "]");
        copy.add_output(v.elems[i]);
      }
      values_[n.output(k)] = v;
    }
    *g_.add_node() = copy;
  }

  // Graph outputs holding tracked values: one output per element (an Identity each).
  std::vector<std::optional<SeqValue>> finish_outputs(bool is_main) {
    std::vector<std::optional<SeqValue>> result;
    ::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> outputs;
    outputs.Swap(g_.mutable_output());
    for (const auto& vi : outputs) {
      const SeqValue* v = find(vi.name());
      if (!v) {
        if (is_sequence_or_optional_type(vi.type()))
          throw CompileError(ErrorKind::Unsupported,
                             "graph output '" + vi.name() + "' is a sequence or optional no operator gives");
        *g_.add_output() = vi;
        result.emplace_back();
        continue;
      }
      result.emplace_back(*v);
      changed = true;
      // The element type declared by the output, its shape left to shape inference.
      ::onnx::TypeProto elem = vi.type();
      while (elem.has_optional_type() || elem.has_sequence_type())
        elem = elem.has_optional_type() ? ::onnx::TypeProto(elem.optional_type().elem_type())
                                        : ::onnx::TypeProto(elem.sequence_type().elem_type());
      elem.mutable_tensor_type()->clear_shape();
      const bool single = v->optional && !v->sequence;
      for (size_t i = 0; i < v->elems.size(); ++i) {
        ::onnx::ValueInfoProto* o = g_.add_output();
        o->set_name(single ? (is_main ? vi.name() : fresh(vi.name()))
                           : fresh(vi.name() + "[" + std::to_string(i) + "]"));
        *o->mutable_type() = elem;
        identity(v->elems[i], o->name());
        result.back()->elems[i] = o->name();
      }
    }
    // value_info of the replaced sequence names would contradict their new tensor types.
    ::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> infos;
    infos.Swap(g_.mutable_value_info());
    for (const auto& vi : infos)
      if (!is_sequence_or_optional_type(vi.type())) *g_.add_value_info() = vi;
    return result;
  }
};

}  // namespace

bool lower_sequences(::onnx::ModelProto& model) {
  int64_t opset = 0;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = op.version();
  std::set<std::string> names;
  SeqLowering top(*model.mutable_graph(), opset, nullptr, &names);
  top.run(true);
  return top.changed;
}

}  // namespace tigris::frontend::onnx
