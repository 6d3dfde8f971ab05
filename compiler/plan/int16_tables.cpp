// Lookup tables of the int16 kernels (see int16_tables.h).
#include "compiler/plan/int16_tables.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tigris::plan {

namespace {

void put16(std::vector<uint8_t>& out, int32_t v) {
  uint16_t u = static_cast<uint16_t>(v);
  out.push_back(static_cast<uint8_t>(u & 0xFF));
  out.push_back(static_cast<uint8_t>(u >> 8));
}

// Round half away from zero in float (TfLiteRound).
float round_f(float v) { return std::round(v); }

// An int16 -> int16 interpolation table of f over [in_min, in_max] (513 entries) whose
// values span [out_min, out_max] of the int16 range, as TensorFlow Lite's LUTPopulateInt16.
void lut(float input_scale, int32_t input_zp, float output_scale, int32_t output_zp, float (*f)(float),
         std::vector<uint8_t>& out) {
  const float input_min = input_scale * static_cast<float>(-32768 - input_zp);
  const float input_max = input_scale * static_cast<float>(32767 - input_zp);
  const float output_min = output_scale * static_cast<float>(-32768 - output_zp);
  const float output_max = output_scale * static_cast<float>(32767 - output_zp);
  const int steps = 512;
  const float step = (input_max - input_min) / steps;
  const float half_step = step / 2;
  const float scaling_inv = 65536.0f / (output_max - output_min);
  const float lo = -32768.0f, hi = 32767.0f;
  for (int i = 0; i < steps; i++) {
    const float val = f(input_min + static_cast<float>(i) * step);
    const float val_mid = f(input_min + static_cast<float>(i) * step + half_step);
    const float val_next = f(input_min + static_cast<float>(i + 1) * step);
    const float sample = round_f(val * scaling_inv);
    const float mid_interp = round_f((val_next * scaling_inv + round_f(val * scaling_inv)) / 2);
    const float mid = round_f(val_mid * scaling_inv);
    const float bias = round_f((mid_interp - mid) / 2);
    put16(out, static_cast<int16_t>(std::min(std::max(sample - bias, lo), hi)));
  }
  put16(out, static_cast<int16_t>(std::min(std::max(round_f(f(input_max) * scaling_inv), lo), hi)));
}

float exp_f(float x) { return std::exp(x); }
float one_over_one_plus(float x) { return 1.0f / (1.0f + x); }

}  // namespace

std::vector<uint8_t> sigmoid_table_bytes() {
  std::vector<uint8_t> out;
  auto s = [](double x) { return 65536.0 / (1.0 + std::exp(-x)); };
  for (int i = 0; i < 255; i++) {
    const double val = s(i / 24.0), next = s((i + 1) / 24.0), mid = s((i + 0.5) / 24.0);
    const double midpoint_error = (val + next) / 2 - mid;
    put16(out, static_cast<int32_t>(std::min(std::round(val - midpoint_error / 2), 65535.0)));
  }
  put16(out, 65535);
  return out;
}

std::vector<uint8_t> softmax_lut_bytes() {
  std::vector<uint8_t> out;
  const float range = 65535.0f;  // int16 max - int16 min
  lut(10.0f / range, 32767, 2.0f / range, 0, exp_f, out);
  lut(1.0f / range, -32768, 2.0f / range, 0, one_over_one_plus, out);
  return out;
}

}  // namespace tigris::plan
