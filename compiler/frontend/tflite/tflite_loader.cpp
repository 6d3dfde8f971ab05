// TFLite frontend entry points: read, list the reasons a model does not convert, import.
#include "compiler/frontend/tflite/tflite_loader.h"

#include <algorithm>

#include "compiler/frontend/tflite/importer.h"
#include "compiler/ir/error.h"
#include "export/tflite/reader.h"

namespace tigris::frontend::tflite {

namespace {

// Whether every subgraph other than the main one is run by an operator of a graph the main
// one reaches: CALL_ONCE (resource variables' initial values, evaluated when converting),
// IF or WHILE (control flow, imported with the operator). Other subgraphs (signatures) are not.
bool only_reached_subgraphs(const tfl::Model& m) {
  std::vector<char> reached(m.subgraphs.size(), 0);
  std::vector<size_t> todo{0};
  reached[0] = 1;
  auto reach = [&](int32_t k, bool walk) {
    if (k <= 0 || static_cast<size_t>(k) >= reached.size() || reached[static_cast<size_t>(k)]) return;
    reached[static_cast<size_t>(k)] = 1;
    if (walk) todo.push_back(static_cast<size_t>(k));
  };
  while (!todo.empty()) {
    const size_t g = todo.back();
    todo.pop_back();
    for (const tfl::Operator& op : m.subgraphs[g].operators) {
      const int32_t code = tfl::builtin_code(m, op);
      if (auto* o = op.options.get<tfl::CallOnceOptions>(); o && code == tfl::op::kCallOnce)
        reach(o->init_subgraph_index, false);
      if (auto* o = op.options.get<tfl::IfOptions>(); o && code == tfl::op::kIf) {
        reach(o->then_subgraph_index, true);
        reach(o->else_subgraph_index, true);
      }
      if (auto* o = op.options.get<tfl::WhileOptions>(); o && code == tfl::op::kWhile) {
        reach(o->cond_subgraph_index, true);
        reach(o->body_subgraph_index, true);
      }
    }
  }
  return std::all_of(reached.begin(), reached.end(), [](char c) { return c != 0; });
}

// Reasons that concern the whole file, not one operator.
std::vector<ConversionReason> model_reasons(const tfl::Model& m) {
  std::vector<ConversionReason> out;
  for (const std::string& part : m.uncarried) out.push_back({-1, "", part});
  if (m.subgraphs.empty())
    out.push_back({-1, "", "the model has no subgraph"});
  else if (!only_reached_subgraphs(m))
    out.push_back({-1, "",
                   "the model has " + std::to_string(m.subgraphs.size()) +
                       " subgraphs and not every one is run by the main one's CALL_ONCE, IF or WHILE operators "
                       "(several signatures); one entry graph is supported"});
  return out;
}

// A model Vela compiled for an Ethos-U NPU: its layers are a command stream only the NPU
// runs. That is the one reason given for such a file (its other operators are moot).
std::vector<ConversionReason> npu_reasons(const tfl::Model& m) {
  std::vector<ConversionReason> out;
  for (const tfl::SubGraph& sg : m.subgraphs)
    for (size_t k = 0; k < sg.operators.size(); ++k) {
      const tfl::Operator& op = sg.operators[k];
      if (tfl::builtin_code(m, op) == tfl::op::kCustom && tfl::operator_kind(m, op) == "ethos-u")
        out.push_back({static_cast<int>(k), "ethos-u",
                       "an Arm Ethos-U NPU operator (a Vela command stream, which runs only on the NPU); "
                       "compile the model as it was before Vela"});
    }
  return out;
}

std::string stem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

std::string prefix(const std::string& path) { return path.empty() ? "" : path + ": "; }

std::string listing(const std::vector<ConversionReason>& reasons) {
  std::string s = std::to_string(reasons.size()) + (reasons.size() == 1 ? " reason" : " reasons");
  for (size_t i = 0; i < reasons.size(); ++i) s += (i ? "; " : ": ") + reasons[i].text();
  return s;
}

}  // namespace

std::vector<ConversionReason> conversion_reasons(const tfl::Model& model) {
  std::vector<ConversionReason> npu = npu_reasons(model);
  if (!npu.empty()) return npu;
  std::vector<ConversionReason> reasons = model_reasons(model);
  if (!reasons.empty() && (model.subgraphs.empty() || !only_reached_subgraphs(model))) return reasons;
  Importer imp(model, "");
  imp.run();
  reasons.insert(reasons.end(), imp.reasons.begin(), imp.reasons.end());
  return reasons;
}

ir::Graph import_tflite(const tfl::Model& model, const std::string& path) {
  std::vector<ConversionReason> npu = npu_reasons(model);
  if (!npu.empty())
    throw ir::CompileError(ir::ErrorKind::Unsupported,
                           prefix(path) + "cannot convert the TFLite model: " + listing(npu));
  std::vector<ConversionReason> reasons = model_reasons(model);
  if (!reasons.empty()) {
    if (!model.subgraphs.empty() && only_reached_subgraphs(model)) {
      Importer imp(model, path);
      imp.run();
      reasons.insert(reasons.end(), imp.reasons.begin(), imp.reasons.end());
    }
    throw ir::CompileError(ir::ErrorKind::Unsupported,
                           prefix(path) + "cannot convert the TFLite model: " + listing(reasons));
  }
  Importer imp(model, path);
  ir::Graph g = imp.run();
  bool model_level = false;
  for (const ConversionReason& r : imp.reasons) model_level = model_level || r.operator_index < 0;
  if (model_level)
    throw ir::CompileError(ir::ErrorKind::Unsupported,
                           prefix(path) + "cannot convert the TFLite model: " + listing(imp.reasons));
  g.name = stem(path);
  return g;
}

ir::Graph load_tflite(const std::vector<uint8_t>& bytes, const std::string& path, std::vector<std::string>&) {
  tfl::Model model;
  try {
    model = tfl::read_model(bytes, path, tfl::ReadOptions{.lenient = true});
  } catch (const tfl::ModelError& e) {
    throw ir::CompileError(ir::ErrorKind::Parse, e.what());
  }
  return import_tflite(model, path);
}

}  // namespace tigris::frontend::tflite
