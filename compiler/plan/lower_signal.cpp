// The signal library's IR nodes (convert_signal.cpp) -> plan ops SIGNAL_* (docs/operators.md
// §3.9): run-time operands as op inputs, constant tables in CONSTANTS, options as the SIGNAL
// attribute's int32 values (docs/plan-format.md lists them per opcode).
#include "compiler/plan/lower_internal.h"

namespace tigris::plan::detail {

namespace {


int32_t fit_i32(const ir::Node& n, int64_t v, const char* what) {
  if (v < INT32_MIN || v > INT32_MAX) unsupported(n, std::string(what) + " does not fit int32");
  return static_cast<int32_t>(v);
}

// Inputs [0, tables_from) are run-time operands; the rest constant tables.
void operands(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op, size_t tables_from) {
  Payload tables;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    ir::TensorId id = n.inputs[i];
    if (id < 0) unsupported(n, "an operand is absent");
    if (i < tables_from) {
      if (g.tensor(id).constant) unsupported(n, "operand '" + g.tensor(id).name + "' is a constant");
      op.inputs.push_back(id);
    } else {
      if (!g.tensor(id).constant) runtime_operand(g, n, id);
      tables.u16(w.get_stored(g, id));
    }
  }
  if (tables_from < n.inputs.size()) add_attr(op, TIGRIS_ATTR_CONSTANTS, tables);
  op.outputs = n.outputs;
}

LowerFn lower(uint8_t type, size_t tables_from, std::initializer_list<const char*> names) {
  std::vector<const char*> kept(names);
  return [type, tables_from, kept](const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
    op.type = type;
    operands(g, n, w, op, tables_from);
    if (kept.empty()) return;
    Payload p;
    for (const char* name : kept) {
      if (!n.attrs.has(name)) unsupported(n, std::string("attribute '") + name + "' is missing");
      p.i32(fit_i32(n, n.attrs.get_int(name, 0), name));
    }
    add_attr(op, TIGRIS_ATTR_SIGNAL, p);
  };
}

void spectral_subtraction(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  op.type = TIGRIS_OP_SIGNAL_SPECTRAL_SUBTRACTION;
  operands(g, n, w, op, 2);
  std::vector<int64_t> p = n.attrs.get_ints("params");
  if (p.size() != 8) unsupported(n, "expects 8 parameters");
  Payload a;
  // unsigned 32-bit parameters travel as their int32 bit patterns
  for (int64_t v : p) a.i32(static_cast<int32_t>(static_cast<uint32_t>(v)));
  add_attr(op, TIGRIS_ATTR_SIGNAL, a);
}

}  // namespace

void register_signal(std::map<std::string, LowerFn>& t) {
  t["SignalWindow"] = lower(TIGRIS_OP_SIGNAL_WINDOW, 1, {"shift"});
  t["SignalFftAutoScale"] = lower(TIGRIS_OP_SIGNAL_FFT_AUTO_SCALE, 1, {});
  t["SignalRfft"] = lower(TIGRIS_OP_SIGNAL_RFFT, 1, {"fft_length"});
  t["SignalEnergy"] = lower(TIGRIS_OP_SIGNAL_ENERGY, 1, {"start_index", "end_index"});
  t["SignalFilterBank"] = lower(TIGRIS_OP_SIGNAL_FILTER_BANK, 1, {"num_channels"});
  t["SignalFilterBankSquareRoot"] = lower(TIGRIS_OP_SIGNAL_FILTER_BANK_SQRT, 2, {});
  t["SignalFilterBankSpectralSubtraction"] = spectral_subtraction;
  t["SignalPCAN"] = lower(TIGRIS_OP_SIGNAL_PCAN, 2, {"snr_shift"});
  t["SignalFilterBankLog"] = lower(TIGRIS_OP_SIGNAL_FILTER_BANK_LOG, 1, {"input_correction_bits", "output_scale"});
}

}  // namespace tigris::plan::detail
