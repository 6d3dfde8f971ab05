// Writes a small plan that keeps state between runs, for the Python tests: no shared model
// compiles to a stateful plan yet, so it is crafted with the plan writer as the runtime's
// unit tests craft theirs (tests/unit/exec/test_exec_state.cpp).
//
//   s_out = s_in + x ;  y = relu(s_out)      s_in/s_out: one variable, initial {1, -2, 3, -4}
//
// Run after run, y is the running sum of every x given so far plus the initial value,
// clamped at zero; tigris_state_init puts the initial value back.
#include <cstdio>
#include <cstring>
#include <fstream>

#include "compiler/plan/plan_writer.h"

using namespace tigris::plan;

namespace {

uint16_t add_tensor(PlanDesc& p, const char* name, uint8_t flags) {
  TensorDesc t;
  t.name = name;
  t.shape = {1, 4};
  t.flags = flags;
  p.tensors.push_back(t);
  return static_cast<uint16_t>(p.tensors.size() - 1);
}

void add_op(PlanDesc& p, const char* name, uint8_t type, std::vector<uint16_t> ins, uint16_t out) {
  OpDesc o;
  o.name = name;
  o.type = type;
  o.inputs = std::move(ins);
  o.outputs = {out};
  p.ops.push_back(o);
}

void add_stage(PlanDesc& p, uint16_t op, std::vector<uint16_t> ins, uint16_t out) {
  StageDesc s;
  s.ops = {op};
  s.inputs = std::move(ins);
  s.outputs = {out};
  p.stages.push_back(s);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.tgrs\n", argv[0]);
    return 2;
  }
  PlanDesc p;
  p.model_name = "accumulator";
  const uint16_t x = add_tensor(p, "x", TIGRIS_TENSOR_MODEL_INPUT);
  const uint16_t s_in = add_tensor(p, "s_in", TIGRIS_TENSOR_STATE);
  const uint16_t s_out = add_tensor(p, "s_out", TIGRIS_TENSOR_STATE);
  const uint16_t y = add_tensor(p, "y", TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, "accumulate", TIGRIS_OP_ADD, {s_in, x}, s_out);
  add_op(p, "clamp", TIGRIS_OP_RELU, {s_out}, y);
  add_stage(p, 0, {s_in, x}, s_out);
  add_stage(p, 1, {s_out}, y);
  p.model_inputs = {x};
  p.model_outputs = {y};
  StateDesc st;
  st.input = s_in;
  st.output = s_out;
  const float initial[4] = {1, -2, 3, -4};
  st.initial.resize(sizeof initial);
  std::memcpy(st.initial.data(), initial, sizeof initial);
  p.state = {st};
  p.scheduled_peak = 2 * TIGRIS_TENSOR_ALIGN;  // two 16-byte tensors live at once, aligned
  p.budget = p.scheduled_peak;
  const std::vector<uint8_t> bytes = write_plan(p);
  std::ofstream out(argv[1], std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return out ? 0 : 1;
}
