// QDQ models layer by layer against the ONNX specification (onnx_reference.h).
//
// Every quantized tensor the folded plan keeps is exposed as an extra output (the plan's own
// names are the ONNX names of QuantizeLinear outputs) and compared in quantization steps with
// the reference two ways:
//   cumulative: the reference run on the model input alone (differences carry from layer to
//               layer);
//   isolated:   the reference evaluated with the plan's values standing for every exposed
//               tensor, so each layer computes from exactly the inputs the plan's layer had:
//               what is left is that layer's own arithmetic (TFLite integer requantization
//               against the specification's float rounding). For each layer: the values
//               equal, those off by one step where the specification's value is an exact tie
//               (the two rounding conventions), and of the others that differ the largest
//               distance of the specification's value from a tie: near-ties that integer
//               requantization (a fixed-point multiplier, rounding twice) rounds the other way.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler/ir/graph.h"
#include "compiler_support/plan_runner.h"
#include "e2e/onnx_reference.h"
#include "tigris_loader.h"

namespace tigris::test {

struct LayerDiff {
  std::string name;
  size_t values = 0, equal = 0;
  int max_steps = 0;
  // Of the values that differ: the largest distance of the specification's unrounded value
  // (x / scale + zero point) from a rounding tie k + 1/2. Small: the two arithmetics round a
  // near-tie differently (-1 when no value differs or the rounding point is unknown).
  double tie_distance = -1;
  // Differing values where the specification's value is a tie itself (k + 1/2 to float
  // precision): TFLite's kernels round ties away from zero, QuantizeLinear to even; both
  // are the nearest integers. Means over an even number of taps meet them often.
  size_t ties = 0;
  double equal_share() const { return values ? static_cast<double>(equal) / static_cast<double>(values) : 1.0; }
  double equal_or_tie_share() const {
    return values ? static_cast<double>(equal + ties) / static_cast<double>(values) : 1.0;
  }
};

struct QdqComparison {
  std::string error;
  std::vector<LayerDiff> isolated, cumulative;
  double output_steps = 0;  // max |ours - reference| of the float output, in output steps
  int argmax = -1, reference_argmax = -1;
  std::vector<double> reference_output;  // the reference's float output
  size_t stages = 0;
};

inline LayerDiff diff_steps(const std::string& name, const std::vector<double>& ours, const std::vector<double>& ref,
                            const std::vector<double>& unrounded = {}) {
  LayerDiff d{name};
  d.values = std::min(ours.size(), ref.size());
  for (size_t i = 0; i < d.values; ++i) {
    int steps = static_cast<int>(std::lround(std::fabs(ours[i] - ref[i])));
    d.equal += steps == 0;
    d.max_steps = std::max(d.max_steps, steps);
    if (steps == 0 || i >= unrounded.size()) continue;
    double distance = std::fabs(unrounded[i] - std::floor(unrounded[i]) - 0.5);
    if (distance < 1e-4 && steps == 1) {
      ++d.ties;
      continue;
    }
    d.tie_distance = std::max(d.tie_distance, distance);
  }
  if (ours.size() != ref.size()) d.max_steps = 1 << 20;
  return d;
}

// Quantized bytes of one output as numbers (uint8 or int8 as the model declares).
inline std::vector<double> quantized_values(const std::vector<uint8_t>& bytes, const std::string& dtype) {
  std::vector<double> v;
  for (uint8_t b : bytes) v.push_back(dtype == "uint8" ? static_cast<double>(b) : static_cast<double>(int8_t(b)));
  return v;
}

inline int argmax_of(const std::vector<double>& v) {
  return v.empty() ? -1 : static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

// Compile `bytes` (a QDQ model with one float input) at `fast` bytes, run it on `input` and
// compare with the reference as above.
inline QdqComparison compare_qdq_layers(const std::vector<uint8_t>& bytes, const std::string& name,
                                        const std::vector<float>& input, uint64_t fast) {
  QdqComparison c;
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    c.error = "model does not parse";
    return c;
  }
  std::map<std::string, bool> produced;  // node outputs of the ONNX graph
  for (const auto& n : proto.graph().node())
    for (const auto& o : n.output()) produced[o] = true;
  std::vector<std::string> layers;
  {
    compiler::Model plain = compiler::load_model_bytes(bytes, name);
    const ir::Graph& g = plain.graph();
    for (const ir::Tensor& t : g.tensors) {
      ir::TensorId id = g.find_tensor(t.name);
      if (t.constant || !t.quant || t.dtype != ir::DType::Int8 || g.is_input(id) || g.is_output(id)) continue;
      // The layout pass renames a tensor it stores channels-last ("_nhwc"): expose the model's.
      std::string base = t.name.size() > 5 && t.name.ends_with("_nhwc") ? t.name.substr(0, t.name.size() - 5) : t.name;
      if (produced.count(base) && std::find(layers.begin(), layers.end(), base) == layers.end()) layers.push_back(base);
    }
  }
  // A stage has at most TIGRIS_MAX_STAGE_OUTPUTS outputs: expose the layers a group at a time
  // (exposing a tensor does not change what is computed).
  const size_t group = TIGRIS_MAX_STAGE_OUTPUTS - 1;
  std::map<std::string, std::vector<double>> ours;
  std::vector<uint8_t> plan_bytes, output;
  std::vector<uint8_t> in(input.size() * 4);
  std::memcpy(in.data(), input.data(), in.size());
  std::string out_name, out_dtype;
  std::vector<int64_t> in_shape;
  for (size_t first = 0; first < std::max<size_t>(layers.size(), 1); first += group) {
    compiler::LoadOptions lo;
    for (size_t k = first; k < std::min(layers.size(), first + group); ++k) lo.extra_outputs.push_back(layers[k]);
    compiler::Model m = compiler::load_model_bytes(bytes, name, lo);
    compiler::Budgets b;
    b.fast = fast;
    compiler::CompileResult r = compiler::compile(m, b);
    if (!r.ok()) {
      c.error = "compile: " + r.error;
      return c;
    }
    PlanRun run = run_plan(r.plan, {in}, static_cast<uint32_t>(r.schedule.slow.peak_bytes + in.size() + (4u << 20)));
    if (!run.error.empty()) {
      c.error = run.error;
      return c;
    }
    const compiler::ModelSummary& s = m.summary();
    for (size_t k = 1; k < s.outputs.size(); ++k)
      ours[s.outputs[k].name] = quantized_values(run.outputs.at(k), s.outputs[k].dtype);
    if (first == 0) {
      c.stages = r.schedule.stages.size();
      plan_bytes = r.plan;
      output = run.outputs.at(0);
      out_name = s.outputs[0].name;
      in_shape = s.inputs.at(0).shape;
    }
  }
  OnnxReference ref(proto);
  RefTensor x{in_shape, std::vector<double>(input.begin(), input.end())};
  std::map<std::string, RefTensor> inputs{{ref.runtime_inputs().at(0), x}};
  ref.run(inputs);
  std::map<std::string, RefTensor> forced;
  for (const std::string& t : layers) {
    c.cumulative.push_back(diff_steps(t, ours[t], ref.value(t).v));
    forced[t] = RefTensor{ref.value(t).shape, ours[t], ref.value(t).uint8};
  }
  std::vector<double> ref_out = ref.value(out_name).v;
  c.reference_output = ref_out;
  ref.run_forced(inputs, forced);
  for (const std::string& t : layers)
    c.isolated.push_back(diff_steps(t, ours[t], ref.computed(t).v, ref.before_rounding(t)));
  // The float output, in steps of its quantization (the plan's output quant param).
  tigris_plan_t plan;
  if (tigris_plan_load(plan_bytes.data(), static_cast<uint32_t>(plan_bytes.size()), &plan) != TIGRIS_OK) {
    c.error = "plan load";
    return c;
  }
  const tigris_quant_param_t* q = tigris_tensor_quant(&plan, &plan.tensors[plan.model_outputs[0]]);
  double step = q ? q->scale : 1.0;
  std::vector<double> out;
  for (size_t i = 0; i + 4 <= output.size(); i += 4) {
    float f;
    std::memcpy(&f, &output[i], 4);
    out.push_back(f);
  }
  for (size_t i = 0; i < std::min(out.size(), ref_out.size()); ++i)
    c.output_steps = std::max(c.output_steps, std::fabs(out[i] - ref_out[i]) / step);
  c.argmax = argmax_of(out);
  c.reference_argmax = argmax_of(ref_out);
  return c;
}

// One line per layer and the end-to-end figures, for the test log.
inline void print_comparison(const std::string& title, const QdqComparison& c) {
  std::printf("%s: %zu quantized layers, %zu stages\n", title.c_str(), c.isolated.size(), c.stages);
  std::printf("  %-40s %11s %8s %4s %9s %11s %4s\n", "layer", "isolated eq", "ties", "max", "tie dist", "cumul. eq",
              "max");
  for (size_t i = 0; i < c.isolated.size(); ++i) {
    const LayerDiff &d = c.isolated[i], &k = c.cumulative[i];
    std::printf("  %-40s %10.3f%% %7.3f%% %4d %9.5f %10.3f%% %4d\n", d.name.c_str(), 100 * d.equal_share(),
                100 * (d.equal_or_tie_share() - d.equal_share()), d.max_steps, d.tie_distance, 100 * k.equal_share(),
                k.max_steps);
  }
  std::printf("  output: max %.2f steps from the reference; argmax %d (reference %d)\n", c.output_steps, c.argmax,
              c.reference_argmax);
}

}  // namespace tigris::test
