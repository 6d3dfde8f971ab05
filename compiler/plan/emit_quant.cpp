#include "compiler/plan/emit_quant.h"

#include "compiler/ir/error.h"
#include "runtime/src/kernels/s8/s8_params.h"

namespace tigris::plan {

namespace {

[[noreturn]] void fail(const std::string& what) { throw ir::CompileError(ir::ErrorKind::Unsupported, what); }

}  // namespace

uint16_t add_quant(PlanDesc& p, const ir::QuantParam& q, const std::string& tensor) {
  if (q.scales.size() != 1 || q.zero_points.size() != 1)
    fail("tensor '" + tensor + "' is quantized per channel; plans quantize activations per tensor");
  if (p.quant.size() >= 0xFFFF) fail("too many quant params for a plan");
  QuantDesc d;
  d.scale = q.scales[0];
  d.zero_point = q.zero_points[0];
  int32_t m = 0;
  int s = 0;
  tigris_s8::quantize_multiplier(static_cast<double>(d.scale), &m, &s);
  d.multipliers = {m};
  d.shifts = {s};
  p.quant.push_back(std::move(d));
  return static_cast<uint16_t>(p.quant.size() - 1);
}

void apply_int8(const LoweredOp& lo, const std::string& op_name, uint16_t output, size_t attrs_from, OpDesc& op,
                PlanDesc& p) {
  op.act_min = lo.act_min;
  op.act_max = lo.act_max;
  if (!lo.out_multipliers.empty()) {
    uint16_t q = p.tensors.at(output).quant;
    if (q == TIGRIS_NONE) fail(op_name + ": int8 output '" + p.tensors[output].name + "' has no quantization");
    p.quant[q].multipliers = lo.out_multipliers;
    p.quant[q].shifts = lo.out_shifts;
  }
  if (lo.constant_quant) {
    uint16_t q = add_quant(p, *lo.constant_quant, op_name + " constant");
    for (size_t i = attrs_from; i < p.attributes.size(); ++i) {
      AttrDesc& a = p.attributes[i];
      if (a.kind != TIGRIS_ATTR_CONSTANT_OPERAND || a.data.size() < 4) continue;
      a.data[2] = static_cast<uint8_t>(q & 0xFF);
      a.data[3] = static_cast<uint8_t>(q >> 8);
    }
  }
}

}  // namespace tigris::plan
