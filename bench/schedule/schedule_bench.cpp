// bench/schedule: compile real models at fast budgets from 512 KiB down to their floor, run
// every plan on the host runtime in a fast arena of exactly the budget, and print per
// model and budget: stages, tiled stages, chains, tiles, scheduled and measured fast peak,
// tensor spill + reload and the bytes the runtime moved (halos, residual reloads), halo
// MACs, compile and inference time, and the error against PyTorch's output. Every row is
// compared with a greedy baseline compiled in the same run (normal stages grown until the
// next op would not fit, an op that cannot run whole banded on its own).
//
// A model is looked up in onnx/ (reference in refs/) and then in zoo/ (reference beside it).
// A closing table gives each model's floor and its spill + reload bytes at 256K/128K/64K.
//
// usage: bench-schedule [models dir] [model ...]   (default: the ONNX float models of onnx/
// mobilenet_v2_224 and unet_small_128, and every float model of zoo/)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler_support/npy.h"
#include "compiler_support/plan_runner.h"

namespace {

using namespace tigris;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double mib(uint64_t b) { return static_cast<double>(b) / 1048576.0; }

struct Row {
  bool ok = false;
  std::string error;
  compiler::FastReport fast;
  uint64_t tensor_io = 0;  // spill + reload (tensor bytes)
  uint64_t moved = 0;      // bytes the runtime loaded + spilled
  uint32_t measured_peak = 0;
  double compile_ms = 0, run_ms = 0;
  double rel_error = -1;  // max |out - ref| / max |ref|, -1 without a reference
};

double rel_error(const std::vector<uint8_t>& out, const std::vector<float>& ref) {
  if (ref.empty() || out.size() != ref.size() * 4) return -1;
  const float* o = reinterpret_cast<const float*>(out.data());
  double max_ref = 0, max_err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    max_ref = std::max(max_ref, static_cast<double>(std::fabs(ref[i])));
    max_err = std::max(max_err, static_cast<double>(std::fabs(o[i] - ref[i])));
  }
  return max_err / std::max(max_ref, 1e-12);
}

Row measure(const compiler::Model& m, uint64_t budget, bool greedy, const std::vector<uint8_t>& input,
            const std::vector<float>& ref) {
  Row r;
  compiler::Budgets b;
  b.fast = budget;
  compiler::CompileOptions o;
  o.greedy_schedule = greedy;
  const auto t0 = Clock::now();
  const compiler::CompileResult c = compiler::compile(m, b, o);
  r.compile_ms = ms_since(t0);
  r.fast = c.schedule.fast;
  if (!c.ok()) {
    r.error = c.error;
    return r;
  }
  r.tensor_io = r.fast.spill_bytes + r.fast.reload_bytes;
  r.moved = r.fast.load_traffic_bytes + r.fast.spill_traffic_bytes;
  tigris_plan_t plan;
  if (tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan) != TIGRIS_OK) {
    r.error = "plan does not load";
    return r;
  }
  const uint32_t required = tigris_fast_arena_required(&plan);
  const uint32_t extra = budget > required ? static_cast<uint32_t>(budget - required) : 0;
  const auto t1 = Clock::now();
  const test::PlanRun run =
      test::run_plan(c.plan, {input}, static_cast<uint32_t>(c.schedule.slow.peak_bytes + 4096), extra);
  r.run_ms = ms_since(t1);
  if (!run.error.empty()) {
    r.error = run.error;
    return r;
  }
  r.measured_peak = run.fast_peak;
  r.rel_error = rel_error(run.outputs.at(0), ref);
  r.ok = true;
  return r;
}

void print_header() {
  std::printf("%-22s %8s %6s %5s %6s %6s %10s %10s %9s %9s %9s %10s %9s %8s %9s | %9s %9s %7s\n", "model", "budget",
              "stages", "tiled", "chains", "tiles", "sched pk", "measured", "spill+rl", "moved", "halo MAC", "compile",
              "run", "rel err", "checks", "greedy mv", "greedy st", "ratio");
}

std::string kib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fK", static_cast<double>(b) / 1024.0);
  return buf;
}

void print_row(const std::string& model, uint64_t budget, const Row& r, const Row& base) {
  std::printf("%-22s %8s ", model.c_str(), kib(budget).c_str());
  if (!r.ok) {
    std::printf("failed: %s\n", r.error.c_str());
    return;
  }
  const compiler::FastReport& f = r.fast;
  const bool peak_ok = r.measured_peak == f.scheduled_peak_bytes && r.measured_peak <= budget;
  const bool out_ok = r.rel_error >= 0 && r.rel_error <= 1e-4;
  std::printf("%6u %5u %6u %6llu %10s %10s %8.2fM %8.2fM %9.2fM %8.0fms %7.0fms %8.1e %9s | ", f.stages,
              f.banded_stages, f.chains, static_cast<unsigned long long>(f.tiles), kib(f.scheduled_peak_bytes).c_str(),
              kib(r.measured_peak).c_str(), mib(r.tensor_io), mib(r.moved), static_cast<double>(f.halo_macs) / 1e6,
              r.compile_ms, r.run_ms, r.rel_error, peak_ok && out_ok ? "ok" : (peak_ok ? "OUTPUT" : "PEAK"));
  if (base.ok)
    std::printf("%8.2fM %9u %7.3f\n", mib(base.moved), base.fast.stages,
                base.moved ? static_cast<double>(r.moved) / static_cast<double>(base.moved) : 0.0);
  else
    std::printf("%9s %9s %7s\n", "-", "-", "-");
}

// Where a model and its reference input/output are: onnx/ with refs/, else zoo/.
struct ModelFiles {
  std::string model, input, output;
};

ModelFiles files_of(const std::string& dir, const std::string& name) {
  if (std::ifstream(dir + "/onnx/" + name + ".onnx").good())
    return {dir + "/onnx/" + name + ".onnx", dir + "/refs/" + name + ".input.npy", dir + "/refs/" + name + ".output.npy"};
  return {dir + "/zoo/" + name + ".onnx", dir + "/zoo/" + name + ".input.npy", dir + "/zoo/" + name + ".output.npy"};
}

struct Summary {
  std::string model;
  uint64_t floor = 0;
  std::vector<std::pair<uint64_t, Row>> rows;  // by budget
};

// The closing table: floor and spill + reload per budget ("-": below the floor or failed).
void print_summary(const std::vector<Summary>& all) {
  const std::vector<uint64_t> budgets = {256u << 10, 128u << 10, 64u << 10};
  std::printf("\n%-24s %10s %12s %12s %12s\n", "model", "floor", "spill+rl 256K", "spill+rl 128K", "spill+rl 64K");
  for (const Summary& s : all) {
    std::printf("%-24s %10s", s.model.c_str(), s.floor ? kib(s.floor).c_str() : "-");
    for (uint64_t b : budgets) {
      auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](const auto& r) { return r.first == b; });
      if (it == s.rows.end() || !it->second.ok)
        std::printf(" %13s", "-");
      else
        std::printf(" %12.2fM", mib(it->second.tensor_io));
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = TIGRIS_MODELS_DIR;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    if (i == 1 && std::string(argv[i]).find('/') != std::string::npos)
      dir = argv[i];
    else
      models.push_back(argv[i]);
  }
  if (models.empty())
    models = {"mobilenet_v2_224",       "unet_small_128",   "efficientnet_b0_224", "densenet121_128",
              "shufflenet_v2_x0_5_224", "audio1d_m5_16000", "lstm_h32_t20"};
  if (!std::ifstream(dir + "/MODELS.md").good()) {
    std::fprintf(stderr, "bench-schedule: the models folder %s is absent\n", dir.c_str());
    return 1;
  }
  print_header();
  std::vector<Summary> all;
  for (const std::string& name : models) {
    const ModelFiles f = files_of(dir, name);
    Summary sum;
    sum.model = name;
    try {
      compiler::Model m = compiler::load_model(f.model);
      const std::vector<uint8_t> input = test::read_npy(f.input).data;
      const std::vector<float> ref =
          std::ifstream(f.output).good() ? test::read_npy(f.output).floats() : std::vector<float>{};
      compiler::Budgets probe;
      probe.fast = 1;
      const compiler::FastReport fr = compiler::schedule(m, probe).fast;
      sum.floor = fr.minimum_for_partition_bytes;
      std::vector<uint64_t> budgets = {512u << 10, 256u << 10, 128u << 10, 64u << 10};
      budgets.erase(std::remove_if(budgets.begin(), budgets.end(), [&](uint64_t b) { return b < sum.floor; }),
                    budgets.end());
      if (sum.floor) budgets.push_back(sum.floor);
      for (uint64_t b : budgets) {
        Row r = measure(m, b, false, input, ref);
        print_row(name, b, r, measure(m, b, true, input, ref));
        sum.rows.emplace_back(b, r);
      }
      std::printf("%-22s floor %s (the smallest budget that compiles; %s)\n", name.c_str(), kib(sum.floor).c_str(),
                  fr.floor_operator.c_str());
    } catch (const std::exception& e) {
      std::printf("%-22s failed: %s\n", name.c_str(), e.what());
    }
    all.push_back(std::move(sum));
  }
  print_summary(all);
  return 0;
}
