// bench-compile [--models DIR] [-m FAST[+SLOW]]... [MODEL.onnx ...]
//
// Compiles every ONNX model of the models folder (or the ones named) at each budget given
// (default 8M and 256K) and prints a table per budget: operators, stages, scheduled peak, spill and reload bytes, plan
// bytes, compile wall time and peak RSS. Each model is compiled in its own child process so the RSS column is that
// model's alone. Ratio columns compare with baselines measured in the same run: the scheduled peak against the model's
// unscheduled peak (the whole graph held at once), the compile time against the time to load and normalize the model.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler/report/format.h"
#include "tools/tigris/sizes.h"

namespace {

namespace fs = std::filesystem;
using tigris::report::format_bytes;

// What the child reports back through its pipe; plain data.
struct Figures {
  int ok = 0;  // 1: a plan was written
  uint32_t operators = 0;
  uint32_t stages = 0;
  uint64_t unscheduled_peak = 0;
  uint64_t scheduled_peak = 0;
  uint64_t spill = 0;
  uint64_t reload = 0;
  uint64_t plan_bytes = 0;
  double load_ms = 0;
  double compile_ms = 0;
  char error[160] = {};
};

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

Figures measure(const std::string& path, const tigris::compiler::Budgets& budgets) {
  Figures f;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const tigris::compiler::Model model = tigris::compiler::load_model(path);
    f.load_ms = elapsed_ms(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const tigris::compiler::CompileResult r = tigris::compiler::compile(model, budgets);
    f.compile_ms = elapsed_ms(t1);
    f.ok = r.ok() ? 1 : 0;
    f.operators = model.summary().operators;
    f.unscheduled_peak = model.summary().unscheduled_peak_bytes;
    f.stages = r.schedule.fast.stages;
    f.scheduled_peak = r.schedule.fast.scheduled_peak_bytes;
    f.spill = r.schedule.fast.spill_bytes;
    f.reload = r.schedule.fast.reload_bytes;
    f.plan_bytes = r.flash.plan_bytes;
    std::snprintf(f.error, sizeof f.error, "%s", r.error.c_str());
  } catch (const std::exception& e) {
    std::snprintf(f.error, sizeof f.error, "%s", e.what());
  }
  return f;
}

// Runs measure() in a child; returns false when the child died.
bool measure_in_child(const std::string& path, const tigris::compiler::Budgets& budgets, Figures& out,
                      long& max_rss_kib) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(fds[0]);
    const Figures f = measure(path, budgets);
    const ssize_t n = write(fds[1], &f, sizeof f);
    _exit(n == static_cast<ssize_t>(sizeof f) ? 0 : 1);
  }
  close(fds[1]);
  const ssize_t n = read(fds[0], &out, sizeof out);
  close(fds[0]);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return false;
  max_rss_kib = usage.ru_maxrss;
  return n == static_cast<ssize_t>(sizeof out) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string fixed(double value, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

int usage_error(const char* why) {
  std::fprintf(stderr, "Error: %s\nusage: bench-compile [--models DIR] [-m FAST[+SLOW]] [MODEL.onnx ...]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string models_dir = TIGRIS_MODELS_DIR;
  std::vector<std::string> budget_texts;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--models" || arg == "-m") && i + 1 >= argc) return usage_error("missing value");
    if (arg == "--models")
      models_dir = argv[++i];
    else if (arg == "-m")
      budget_texts.push_back(argv[++i]);
    else if (!arg.empty() && arg[0] == '-')
      return usage_error(("unknown option " + arg).c_str());
    else
      models.push_back(arg);
  }
  if (budget_texts.empty()) budget_texts = {"8M", "256K"};
  std::vector<tigris::compiler::Budgets> all_budgets;
  for (const std::string& text : budget_texts) {
    try {
      const std::vector<int64_t> pools = tigris::cli::parse_pools({text});
      tigris::compiler::Budgets budgets;
      budgets.fast = static_cast<uint64_t>(pools.at(0));
      if (pools.size() > 1) budgets.slow = static_cast<uint64_t>(pools[1]);
      all_budgets.push_back(budgets);
    } catch (const std::exception& e) {
      return usage_error(e.what());
    }
  }
  if (models.empty()) {
    const fs::path dir = fs::path(models_dir) / "onnx";
    if (!fs::is_directory(dir)) {
      std::fprintf(stderr, "Error: %s: no such folder (give --models DIR or model files)\n", dir.c_str());
      return 1;
    }
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".onnx") models.push_back(entry.path().string());
    std::sort(models.begin(), models.end());
  }

  int failures = 0;
  for (const tigris::compiler::Budgets& budgets : all_budgets) {
    std::printf("bench-compile: fast budget %s, %zu models\n", format_bytes(budgets.fast).c_str(), models.size());
    tigris::report::TextTable table;
    table.add({"model", "ops", "stages", "unscheduled", "peak", "peak/unsch.", "spill", "reload", "plan", "load ms",
               "compile ms", "compile/load", "RSS", "result"});
    for (size_t c = 1; c < 13; ++c) table.right_align(c);
    for (const std::string& path : models) {
      Figures f;
      long rss_kib = 0;
      const std::string name = fs::path(path).stem().string();
      if (!measure_in_child(path, budgets, f, rss_kib)) {
        table.add({name, "", "", "", "", "", "", "", "", "", "", "", "", "crashed"});
        ++failures;
        continue;
      }
      const double peak_ratio = f.unscheduled_peak ? double(f.scheduled_peak) / double(f.unscheduled_peak) : 0.0;
      const double time_ratio = f.load_ms > 0 ? f.compile_ms / f.load_ms : 0.0;
      table.add({name, std::to_string(f.operators), std::to_string(f.stages), format_bytes(f.unscheduled_peak),
                 format_bytes(f.scheduled_peak), fixed(peak_ratio, "%.3f"), format_bytes(f.spill),
                 format_bytes(f.reload), f.plan_bytes ? format_bytes(f.plan_bytes) : "-", fixed(f.load_ms, "%.1f"),
                 fixed(f.compile_ms, "%.1f"), fixed(time_ratio, "%.2f"), format_bytes(uint64_t(rss_kib) * 1024),
                 f.ok ? "plan" : std::string(f.error).substr(0, 90)});
    }
    std::fputs(table.render().c_str(), stdout);
    std::printf("\n");
  }
  return failures ? 1 : 0;
}
