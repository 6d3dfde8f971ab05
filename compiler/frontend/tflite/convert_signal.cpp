// TensorFlow Lite Micro's signal library (CUSTOM operators, options as FlexBuffer maps) ->
// IR nodes of the same names: SignalWindow, SignalFftAutoScale, SignalRfft, SignalEnergy,
// SignalFilterBank, SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction,
// SignalPCAN, SignalFilterBankLog. Their options become node attributes, their constant
// tables node inputs; TFLM's UINT32 / UINT64 tensors are int32 / int64 tensors here (the
// kernels read them unsigned). SpectralSubtraction's noise estimate, a persistent buffer TFLM
// zeroes on Reset, becomes a state variable of zeros.
#include <algorithm>
#include <cstring>

#include "compiler/frontend/tflite/importer.h"
#include "export/tflite/flexbuffer.h"
#include "runtime/src/kernels/signal/signal_math.h"

namespace tigris::frontend::tflite {

namespace {

using tfl::TensorType;
using ::tigris::tflite::FlexError;
using ::tigris::tflite::FlexMap;

FlexMap options(Importer& imp) {
  if (!imp.op().custom_options) refuse("its options are missing");
  try {
    return FlexMap(*imp.op().custom_options);
  } catch (const FlexError& e) {
    refuse(std::string("malformed options: ") + e.what());
  }
}

// The option `key` as an int, refused (naming it) outside [lo, hi].
int64_t option(const FlexMap& m, const std::string& key, int64_t lo, int64_t hi) {
  try {
    return m.integer(key, lo, hi);
  } catch (const FlexError& e) {
    refuse(e.what());
  }
}

void expect_type(Importer& imp, int32_t i, TensorType t) {
  if (imp.type(i) != t)
    refuse("tensor '" + imp.tensor(i).name + "' is " + tfl::tensor_type_name(imp.type(i)) + "; expected " +
           tfl::tensor_type_name(t));
}

void expect_io(Importer& imp, size_t ins, size_t outs) {
  if (imp.num_inputs() != ins || imp.op().outputs.size() != outs)
    refuse("expects " + std::to_string(ins) + " inputs and " + std::to_string(outs) + " outputs");
}

// A rank-1 activation of `type` (its length when n < 0).
int64_t vector_input(Importer& imp, int32_t i, TensorType type, int64_t n = -1) {
  expect_type(imp, i, type);
  if (imp.is_const(i)) refuse("operand '" + imp.tensor(i).name + "' is a constant where an activation is expected");
  std::vector<int64_t> s = imp.tfl_shape(i);
  if (s.size() != 1 || (n >= 0 && s[0] != n))
    refuse("tensor '" + imp.tensor(i).name + "' is not a vector" + (n >= 0 ? " of " + std::to_string(n) : ""));
  return s[0];
}

// A rank-1 int16 constant table.
ir::TensorId table(Importer& imp, int32_t i) {
  if (!imp.is_const(i)) refuse("table '" + imp.tensor(i).name + "' is computed at run time");
  expect_type(imp, i, TensorType::Int16);
  if (imp.tfl_shape(i).size() != 1) refuse("table '" + imp.tensor(i).name + "' is not a vector");
  return imp.constant(i);
}

void window(Importer& imp) {
  expect_io(imp, 2, 1);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  expect_type(imp, x, TensorType::Int16), expect_type(imp, y, TensorType::Int16);
  std::vector<int64_t> xs = imp.tfl_shape(x);
  if (xs.empty() || imp.tfl_shape(y) != xs) refuse("input and output shapes differ");
  ir::TensorId w = table(imp, imp.input(1));
  if (imp.g.tensor(w).shape[0] != xs.back()) refuse("the window's length is not the input's last extent");
  ir::TensorId in = imp.tfl_order(imp.act(x));
  ir::TensorId out = imp.act(y);
  imp.add_node("SignalWindow", {in, w}, {out}).attrs.set("shift", option(m, "shift", 0, 31));
}

void fft_auto_scale(Importer& imp) {
  expect_io(imp, 1, 2);
  int32_t x = imp.input(0), y = imp.output(0), bits = imp.output(1);
  int64_t n = vector_input(imp, x, TensorType::Int16);
  expect_type(imp, y, TensorType::Int16), expect_type(imp, bits, TensorType::Int32);
  if (imp.tfl_shape(y) != std::vector<int64_t>{n} || !imp.tfl_shape(bits).empty())
    refuse("outputs are not the input's shape and a scalar");
  imp.add_node("SignalFftAutoScale", {imp.act(x)}, {imp.act(y), imp.act(bits)});
}

void rfft(Importer& imp) {
  expect_io(imp, 1, 1);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  if (option(m, "T", 0, 255) != static_cast<int64_t>(TensorType::Int16))
    refuse("only the int16 FFT is supported (T is " + std::to_string(m.integer("T")) + ")");
  const int64_t n = option(m, "fft_length", 4, 1 << 20);
  if (!tigris_signal::rfft_supported(static_cast<int32_t>(n)))
    refuse("fft_length " + std::to_string(n) + ": half of it must factor into 2, 3, 4 and 5");
  expect_type(imp, x, TensorType::Int16), expect_type(imp, y, TensorType::Int16);
  std::vector<int64_t> xs = imp.tfl_shape(x), ys = imp.tfl_shape(y);
  if (xs.empty() || ys.size() != xs.size() || xs.back() > n || ys.back() != n + 2 ||
      !std::equal(xs.begin(), xs.end() - 1, ys.begin()))
    refuse("shapes do not fit fft_length " + std::to_string(n));
  // kissfft's twiddles, as its allocation computes them, become a constant table.
  ir::Tensor tw;
  tw.name = imp.g.unique_tensor_name(imp.tensor(y).name + "_twiddles");
  tw.dtype = ir::DType::Int16;
  tw.shape = {3 * n / 2};
  tw.constant = true;
  std::vector<int16_t> values(static_cast<size_t>(3 * n / 2));
  tigris_signal::rfft_twiddles(static_cast<int32_t>(n), values.data());
  tw.data.resize(values.size() * 2);
  std::memcpy(tw.data.data(), values.data(), tw.data.size());
  ir::TensorId twiddles = imp.g.add_tensor(std::move(tw));
  ir::TensorId in = imp.tfl_order(imp.act(x));
  ir::TensorId out = imp.act(y);
  imp.add_node("SignalRfft", {in, twiddles}, {out}).attrs.set("fft_length", n);
}

void energy(Importer& imp) {
  expect_io(imp, 1, 1);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  int64_t n = vector_input(imp, x, TensorType::Int16);
  expect_type(imp, y, TensorType::UInt32);
  std::vector<int64_t> ys = imp.tfl_shape(y);
  if (n % 2 != 0 || ys.size() != 1) refuse("the input is not a complex vector or the output not a vector");
  const int64_t start = option(m, "start_index", 0, n / 2), end = option(m, "end_index", start, n / 2);
  if (ys[0] < end) refuse("the output is shorter than end_index");
  ir::Node& node = imp.add_node("SignalEnergy", {imp.act(x)}, {imp.act(y)});
  node.attrs.set("start_index", start);
  node.attrs.set("end_index", end);
}

void filter_bank(Importer& imp) {
  expect_io(imp, 6, 1);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  vector_input(imp, x, TensorType::UInt32);
  const int64_t channels = option(m, "num_channels", 1, 1 << 15);
  expect_type(imp, y, TensorType::UInt64);
  if (imp.tfl_shape(y) != std::vector<int64_t>{channels}) refuse("the output is not a vector of num_channels");
  std::vector<ir::TensorId> in = {imp.act(x)};
  for (size_t k = 1; k < 6; ++k) in.push_back(table(imp, imp.input(k)));
  const ir::Graph& g = imp.g;
  if (g.tensor(in[1]).shape != g.tensor(in[2]).shape) refuse("weights and unweights differ in length");
  for (size_t k = 3; k < 6; ++k)
    if (g.tensor(in[k]).shape[0] != channels + 1) refuse("a channel table does not hold num_channels + 1 entries");
  // Every bin and weight the sums read must lie in its table (TFLM does not check).
  auto at = [&](size_t k, int64_t i) {
    int16_t v;
    std::memcpy(&v, g.tensor(in[k]).data.data() + 2 * i, 2);
    return static_cast<int64_t>(v);
  };
  const int64_t bins = imp.tfl_shape(x)[0], weights = g.tensor(in[1]).shape[0];
  for (int64_t i = 0; i <= channels; ++i)
    if (at(3, i) < 0 || at(4, i) < 0 || at(5, i) < 0 || at(3, i) + at(5, i) > bins || at(4, i) + at(5, i) > weights)
      refuse("channel " + std::to_string(i) + " reads outside the spectrum or the weights");
  imp.add_node("SignalFilterBank", in, {imp.act(y)}).attrs.set("num_channels", channels);
}

void filter_bank_sqrt(Importer& imp) {
  expect_io(imp, 2, 1);
  int32_t x = imp.input(0), bits = imp.input(1), y = imp.output(0);
  int64_t n = vector_input(imp, x, TensorType::UInt64);
  expect_type(imp, bits, TensorType::Int32);
  if (!imp.tfl_shape(bits).empty() || imp.is_const(bits)) refuse("the scale bits are not a scalar activation");
  expect_type(imp, y, TensorType::UInt32);
  if (imp.tfl_shape(y) != std::vector<int64_t>{n}) refuse("the output is not the input's shape");
  imp.add_node("SignalFilterBankSquareRoot", {imp.act(x), imp.act(bits)}, {imp.act(y)});
}

void spectral_subtraction(Importer& imp) {
  expect_io(imp, 1, 2);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), y = imp.output(0), noise = imp.output(1);
  const int64_t n = vector_input(imp, x, TensorType::UInt32);
  expect_type(imp, y, TensorType::UInt32), expect_type(imp, noise, TensorType::UInt32);
  if (option(m, "num_channels", 1, 1 << 15) != n) refuse("num_channels is not the input's length");
  if (imp.tfl_shape(y) != std::vector<int64_t>{n} || imp.tfl_shape(noise) != std::vector<int64_t>{n})
    refuse("outputs are not the input's shape");
  const int64_t u32 = 0xFFFFFFFFll;
  std::vector<int64_t> p = {option(m, "smoothing", 0, u32),
                            option(m, "one_minus_smoothing", 0, u32),
                            option(m, "alternate_smoothing", 0, u32),
                            option(m, "alternate_one_minus_smoothing", 0, u32),
                            option(m, "min_signal_remaining", 0, u32),
                            option(m, "smoothing_bits", 0, 31),
                            option(m, "spectral_subtraction_bits", 0, 63)};
  try {
    p.push_back(m.boolean("clamping") ? 1 : 0);
  } catch (const FlexError& e) {
    refuse(e.what());
  }
  ir::TensorId in = imp.act(x), out = imp.act(y), next = imp.act(noise);
  // Last, after everything that may refuse: a refused operator's rollback drops its tensors.
  const std::string key = "signal noise estimate of " + imp.tensor(noise).name;
  ir::TensorId state = imp.kernel_state(key, next);
  imp.add_node("SignalFilterBankSpectralSubtraction", {in, state}, {out, next}).attrs.set("params", p);
  imp.assign_kernel_state(key, next);
}

void pcan(Importer& imp) {
  expect_io(imp, 3, 1);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), noise = imp.input(1), y = imp.output(0);
  const int64_t n = vector_input(imp, x, TensorType::UInt32);
  vector_input(imp, noise, TensorType::UInt32, n);
  expect_type(imp, y, TensorType::UInt32);
  if (imp.tfl_shape(y) != std::vector<int64_t>{n}) refuse("the output is not the input's shape");
  ir::TensorId lut = table(imp, imp.input(2));
  if (imp.g.tensor(lut).shape[0] != 125) refuse("the gain table does not hold 125 entries");
  imp.add_node("SignalPCAN", {imp.act(x), imp.act(noise), lut}, {imp.act(y)})
      .attrs.set("snr_shift", option(m, "snr_shift", 0, 63));
}

void filter_bank_log(Importer& imp) {
  expect_io(imp, 1, 1);
  const FlexMap m = options(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  const int64_t n = vector_input(imp, x, TensorType::UInt32);
  expect_type(imp, y, TensorType::Int16);
  if (imp.tfl_shape(y) != std::vector<int64_t>{n}) refuse("the output is not the input's shape");
  ir::Node& node = imp.add_node("SignalFilterBankLog", {imp.act(x)}, {imp.act(y)});
  node.attrs.set("input_correction_bits", option(m, "input_correction_bits", 0, 31));
  node.attrs.set("output_scale", option(m, "output_scale", INT32_MIN, INT32_MAX));
}

const std::map<std::string, Converter>& signal_converters() {
  static const std::map<std::string, Converter> t = {
      {"SignalWindow", window},
      {"SignalFftAutoScale", fft_auto_scale},
      {"SignalRfft", rfft},
      {"SignalEnergy", energy},
      {"SignalFilterBank", filter_bank},
      {"SignalFilterBankSquareRoot", filter_bank_sqrt},
      {"SignalFilterBankSpectralSubtraction", spectral_subtraction},
      {"SignalPCAN", pcan},
      {"SignalFilterBankLog", filter_bank_log},
  };
  return t;
}

// CUSTOM operators by their custom code: the signal library's; others are refused.
void custom(Importer& imp) {
  auto it = signal_converters().find(imp.kind());
  if (it == signal_converters().end()) refuse("no conversion for this custom operator");
  it->second(imp);
}

}  // namespace

void register_signal(std::map<int32_t, Converter>& table) { table[tfl::op::kCustom] = custom; }

}  // namespace tigris::frontend::tflite
