// TFLite resource variables: VAR_HANDLE names a variable, READ_VARIABLE reads its value,
// ASSIGN_VARIABLE replaces it, and CALL_ONCE runs a subgraph (once, before the first run)
// that gives variables their initial values. Each variable becomes one of the plan's state
// variables (ir::Graph::state): a run starts from the value the previous run left and
// leaves the last value assigned. CALL_ONCE's subgraph is evaluated here: it may only
// assign constants, which become the variables' initial values (tigris_state_init).
#include "compiler/frontend/tflite/importer.h"

namespace tigris::frontend::tflite {

namespace {

std::string resource_key(const tfl::VarHandleOptions& o) { return o.container + "/" + o.shared_name; }

const std::string& handle_key(Importer& imp, int32_t handle) {
  auto it = imp.resource_of.find(handle);
  if (it == imp.resource_of.end()) refuse("its resource operand does not come from a VAR_HANDLE");
  return it->second;
}

void var_handle(Importer& imp) {
  auto* o = imp.op().options.get<tfl::VarHandleOptions>();
  if (o == nullptr) refuse("VAR_HANDLE without its options (container, shared_name)");
  imp.resource_of[imp.output(0)] = resource_key(*o);
}

void read_variable(Importer& imp) {
  const int32_t y = imp.output(0);
  imp.alias(y, imp.read_resource(handle_key(imp, imp.input(0)), y));
}

void assign_variable(Importer& imp) {
  const int32_t value = imp.input(1);
  if (imp.is_const(value))
    refuse("assigns the constant '" + imp.tensor(value).name +
           "' at run time; only CALL_ONCE's subgraph may assign constants");
  imp.assign_resource(handle_key(imp, imp.input(0)), value, imp.act(value));
}

// The initial values CALL_ONCE's subgraph assigns: VAR_HANDLE and ASSIGN_VARIABLE of
// constants only (anything computed would need the subgraph run on the device).
void call_once(Importer& imp) {
  auto* o = imp.op().options.get<tfl::CallOnceOptions>();
  const tfl::Model& m = imp.model();
  if (o == nullptr || o->init_subgraph_index <= 0 || static_cast<size_t>(o->init_subgraph_index) >= m.subgraphs.size())
    refuse("CALL_ONCE names no initialisation subgraph");
  const tfl::SubGraph& sg = m.subgraphs[static_cast<size_t>(o->init_subgraph_index)];
  const std::string where = "CALL_ONCE's subgraph " + std::to_string(o->init_subgraph_index);
  std::map<int32_t, std::string> handles;
  for (size_t k = 0; k < sg.operators.size(); ++k) {
    const tfl::Operator& op = sg.operators[k];
    const int32_t code = tfl::builtin_code(m, op);
    const std::string at = where + ", operator " + std::to_string(k) + " (" + tfl::operator_kind(m, op) + ")";
    if (code == tfl::op::kVarHandle && op.outputs.size() == 1) {
      auto* h = op.options.get<tfl::VarHandleOptions>();
      if (h == nullptr) refuse(at + ": no options");
      handles[op.outputs[0]] = resource_key(*h);
      continue;
    }
    if (code != tfl::op::kAssignVariable || op.inputs.size() != 2 || !handles.count(op.inputs[0]))
      refuse(at + ": an initialisation subgraph may only assign constants to variables");
    const int32_t v = op.inputs[1];
    if (v < 0 || static_cast<size_t>(v) >= sg.tensors.size() ||
        !tfl::is_constant(m, sg.tensors[static_cast<size_t>(v)]))
      refuse(at + ": assigns a value computed at run time; only constants are supported");
    const std::span<const uint8_t> d = tfl::tensor_data(m, sg.tensors[static_cast<size_t>(v)]);
    imp.resource_initial[handles[op.inputs[0]]] = std::vector<uint8_t>(d.begin(), d.end());
  }
}

}  // namespace

void register_variables(std::map<int32_t, Converter>& table) {
  table[tfl::op::kVarHandle] = var_handle;
  table[tfl::op::kReadVariable] = read_variable;
  table[tfl::op::kAssignVariable] = assign_variable;
  table[tfl::op::kCallOnce] = call_once;
}

}  // namespace tigris::frontend::tflite
