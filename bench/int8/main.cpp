// bench-int8 [--models DIR] [--no-callgrind]
//
// For each int8 model and the float model of the same network (the baseline, measured in
// the same run), two plans: untiled (64 MiB: one stage) and the tightest partition the
// scheduler finds. Per plan: stages, fast peak (measured by the runtime), instructions per
// inference under `valgrind --tool=callgrind` (stable across machines: the difference
// between a child running 3 inferences and one running 1, halved) and wall time per
// inference (best of 5 timed batches). One inference = arena setup, input write (with the
// float32 -> int8 conversion of QDQ boundaries), the run on the int8 dispatcher (float
// plans: the float dispatcher) and output read. Inputs are a fixed pattern in stored order:
// the figures are costs, not results (correctness is the e2e tests' job).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler/report/format.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"

namespace {

namespace fs = std::filesystem;
using tigris::report::format_bytes;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;
Buffer aligned(size_t bytes) { return Buffer(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 64) / 64 * 64))); }

// A loaded plan with its arenas; run() does one inference.
class Runner {
 public:
  explicit Runner(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {
    ok_ = tigris_plan_load(bytes_.data(), static_cast<uint32_t>(bytes_.size()), &plan_) == TIGRIS_OK;
    if (!ok_) return;
    fast_size_ = tigris_fast_arena_required(&plan_);
    fast_ = aligned(fast_size_);
    slow_ = aligned(kSlow);
    ptrs_.resize(plan_.header->num_tensors);
    ws_.resize(tigris_executor_workspace_required(&plan_) + 64);
    kernel_ = tigris_plan_data_dtype(&plan_) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
    for (uint8_t i = 0; i < plan_.header->num_model_inputs; ++i) inputs_.push_back(pattern(plan_.model_inputs[i]));
  }
  bool ok() const { return ok_; }
  uint32_t fast_peak() const { return fast_peak_; }

  bool run() {
    tigris_mem_t mem;
    if (tigris_mem_init(&mem, ptrs_.data(), plan_.header->num_tensors, fast_.get(), fast_size_, slow_.get(), kSlow) !=
        TIGRIS_MEM_OK)
      return false;
    for (uint8_t i = 0; i < plan_.header->num_model_inputs; ++i)
      if (tigris_input_write(&plan_, &mem, plan_.model_inputs[i], inputs_[i].data(),
                             static_cast<uint32_t>(inputs_[i].size())) != TIGRIS_OK)
        return false;
    tigris_exec_stats_t stats{};
    if (tigris_run_with_workspace_buffer(&plan_, &mem, kernel_, nullptr, &stats, ws_.data(), ws_.size()) !=
        TIGRIS_EXEC_OK)
      return false;
    fast_peak_ = mem.fast_peak;
    for (uint8_t i = 0; i < plan_.header->num_model_outputs; ++i) {
      uint16_t t = plan_.model_outputs[i];
      out_.resize(tigris_iface_bytes(&plan_, t));
      if (tigris_output_read(&plan_, &mem, t, out_.data(), static_cast<uint32_t>(out_.size())) != TIGRIS_OK)
        return false;
    }
    return true;
  }

 private:
  static constexpr uint32_t kSlow = 32u << 20;

  // Declared-dtype bytes: floats in [-1, 1], int8 as a ramp.
  std::vector<uint8_t> pattern(uint16_t t) const {
    const tigris_tensor_t& rec = plan_.tensors[t];
    std::vector<uint8_t> b(tigris_iface_bytes(&plan_, t));
    if (tigris_tensor_declared_dtype(&rec) == TIGRIS_DTYPE_FLOAT32) {
      for (size_t i = 0; i + 4 <= b.size(); i += 4) {
        float v = std::sin(static_cast<float>(i) * 0.01f);
        std::memcpy(b.data() + i, &v, 4);
      }
    } else {
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 7);
    }
    return b;
  }

  std::vector<uint8_t> bytes_;
  tigris_plan_t plan_{};
  bool ok_ = false;
  uint32_t fast_size_ = 0, fast_peak_ = 0;
  Buffer fast_, slow_;
  std::vector<void*> ptrs_;
  std::vector<uint8_t> ws_, out_;
  std::vector<std::vector<uint8_t>> inputs_;
  tigris_kernel_fn kernel_ = nullptr;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `--child PLAN RUNS`: what callgrind measures.
int child(const std::string& plan, int runs) {
  Runner r(read_file(plan));
  if (!r.ok()) return 2;
  for (int i = 0; i < runs; ++i)
    if (!r.run()) return 3;
  return 0;
}

// Total instructions (Ir) of `self --child plan runs` under callgrind.
std::optional<uint64_t> callgrind_ir(const std::string& self, const std::string& plan, int runs, const fs::path& dir) {
  const std::string out = (dir / ("cg." + std::to_string(runs) + ".out")).string();
  const std::string cmd = "valgrind --tool=callgrind --callgrind-out-file=" + out + " " + self + " --child " + plan +
                          " " + std::to_string(runs) + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return std::nullopt;
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0)
      return std::stoull(line.substr(line.find(':') + 1));
  return std::nullopt;
}

double wall_us(Runner& r) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) r.run();
  int per_batch = 1;
  for (;;) {  // batches of at least 50 ms
    auto t0 = clock::now();
    for (int i = 0; i < per_batch; ++i) r.run();
    if (std::chrono::duration<double>(clock::now() - t0).count() > 0.05 || per_batch > (1 << 16)) break;
    per_batch *= 2;
  }
  double best = 1e30;
  for (int b = 0; b < 5; ++b) {
    auto t0 = clock::now();
    for (int i = 0; i < per_batch; ++i) r.run();
    best = std::min(best, std::chrono::duration<double, std::micro>(clock::now() - t0).count() / per_batch);
  }
  return best;
}

struct Row {
  std::string model, plan, baseline;  // baseline: the float model's name, or ""
  uint64_t budget = 0;
  size_t stages = 0;
  uint32_t fast_peak = 0;
  std::optional<uint64_t> ir;
  double us = 0;
  std::string error;
};

void measure(const std::string& self, const std::string& path, const std::string& baseline, bool callgrind,
             const fs::path& dir, std::vector<Row>& rows) {
  const std::string name = fs::path(path).stem().string();
  tigris::compiler::Model m = tigris::compiler::load_model(path);
  tigris::compiler::Budgets probe;
  probe.fast = 64u << 20;
  const uint64_t tight = tigris::compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  for (auto [plan, budget] : {std::pair<const char*, uint64_t>{"untiled", 64u << 20}, {"tightest", tight}}) {
    Row row;
    row.model = name;
    row.plan = plan;
    row.baseline = baseline;
    row.budget = budget;
    tigris::compiler::Budgets b;
    b.fast = budget;
    tigris::compiler::CompileResult c = tigris::compiler::compile(m, b);
    if (!c.ok()) {
      row.error = c.error;
      rows.push_back(row);
      continue;
    }
    row.stages = c.schedule.stages.size();
    const std::string file = (dir / (name + "." + plan + ".tgrs")).string();
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(c.plan.data()), static_cast<std::streamsize>(c.plan.size()));
    Runner r(c.plan);
    if (!r.ok() || !r.run()) {
      row.error = "plan does not run";
      rows.push_back(row);
      continue;
    }
    row.fast_peak = r.fast_peak();
    row.us = wall_us(r);
    if (callgrind) {
      std::optional<uint64_t> one = callgrind_ir(self, file, 1, dir), three = callgrind_ir(self, file, 3, dir);
      if (one && three && *three > *one) row.ir = (*three - *one) / 2;
    }
    rows.push_back(row);
  }
}

const Row* find(const std::vector<Row>& rows, const std::string& model, const std::string& plan) {
  for (const Row& r : rows)
    if (r.model == model && r.plan == plan && r.error.empty()) return &r;
  return nullptr;
}

std::string ratio(double a, double b) {
  if (!(b > 0) || !(a > 0)) return "-";
  char s[32];
  std::snprintf(s, sizeof s, "%.2fx", a / b);
  return s;
}

void print(const std::vector<Row>& rows) {
  std::printf("%-32s %-9s %11s %6s %11s %15s %8s %8s %12s %8s %8s\n", "model", "plan", "budget", "stages", "fast peak",
              "instr/infer", "/untiled", "/float", "us/infer", "/untiled", "/float");
  for (const Row& r : rows) {
    if (!r.error.empty()) {
      std::printf("%-32s %-9s %11s  %s\n", r.model.c_str(), r.plan.c_str(), format_bytes(r.budget).c_str(),
                  r.error.c_str());
      continue;
    }
    const Row* plain = find(rows, r.model, "untiled");
    const Row* base = r.baseline.empty() ? nullptr : find(rows, r.baseline, r.plan);
    std::string ir = r.ir ? tigris::report::format_count(*r.ir) : "-";
    std::printf(
        "%-32s %-9s %11s %6zu %11s %15s %8s %8s %12.1f %8s %8s\n", r.model.c_str(), r.plan.c_str(),
        format_bytes(r.budget).c_str(), r.stages, format_bytes(r.fast_peak).c_str(), ir.c_str(),
        r.plan == std::string("untiled") || !plain || !plain->ir || !r.ir
            ? "-"
            : ratio(static_cast<double>(*r.ir), static_cast<double>(*plain->ir)).c_str(),
        base && base->ir && r.ir ? ratio(static_cast<double>(*r.ir), static_cast<double>(*base->ir)).c_str() : "-",
        r.us, r.plan == std::string("untiled") || !plain ? "-" : ratio(r.us, plain->us).c_str(),
        base ? ratio(r.us, base->us).c_str() : "-");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--child") return child(argv[2], std::atoi(argv[3]));
  std::string models = TIGRIS_MODELS_DIR;
  bool callgrind = std::system("valgrind --version >/dev/null 2>&1") == 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--models" && i + 1 < argc)
      models = argv[++i];
    else if (a == "--no-callgrind")
      callgrind = false;
    else {
      std::fprintf(stderr, "usage: bench-int8 [--models DIR] [--no-callgrind]\n");
      return 2;
    }
  }
  // (model, its float baseline) in the order printed; baselines first.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tflite/vww_96_float.tflite", ""},
      {"tflite/vww_96_int8.tflite", "vww_96_float"},
      {"tflite/kws_ref_model.tflite", ""},
      {"onnx/mobilenet_v2_035_96_2cls.onnx", ""},
      {"onnx/mobilenet_v2_035_96_2cls_qdq.onnx", "mobilenet_v2_035_96_2cls"},
  };
  const std::string self = fs::canonical("/proc/self/exe").string();
  const fs::path dir = fs::temp_directory_path() / ("bench-int8." + std::to_string(getpid()));
  fs::create_directories(dir);
  std::vector<Row> rows;
  for (const auto& [file, baseline] : cases) {
    const std::string path = models + "/" + file;
    if (!fs::exists(path)) {
      std::fprintf(stderr, "skipping %s: not found\n", path.c_str());
      continue;
    }
    try {
      measure(self, path, baseline, callgrind, dir, rows);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
    }
  }
  fs::remove_all(dir);
  std::printf("instructions: %s; kws_ref_model has no float TFLite Micro model (its float32 file is hybrid)\n",
              callgrind ? "valgrind --tool=callgrind, (3 inferences - 1) / 2" : "valgrind not found, not measured");
  print(rows);
  return 0;
}
