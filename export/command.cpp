// The export command: search, report, write.
#include "export/command.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "export/tflite/writer.h"

namespace tigris::exporter {
namespace {

std::string printf_string(const char* format, auto... args) {
  char buf[128];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

std::string rjust(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string row(const std::string& label, const std::string& value) {
  std::string padded = label + std::string(label.size() < 14 ? 14 - label.size() : 1, ' ');
  return "  " + padded + rjust(value, 11);
}

std::string run_text(const BandedRun& r) {
  std::string ops = r.first_op == r.last_op
                        ? "operator " + std::to_string(r.first_op)
                        : "operators " + std::to_string(r.first_op) + "-" + std::to_string(r.last_op);
  return ops + " computed in " + std::to_string(r.bands) + " row bands";
}

// The report up to its `wrote` line.
std::string report_text(const ExportOptions& options, const ExportPlan& p) {
  std::string t = describe_plan(p) + "\n\n";
  t += std::string("TFLite Micro arena, reference kernels on ") + tflm::target_name(options.target) + "\n";
  t += row("head", format_bytes(p.after.head)) + "   " + format_bytes(p.before.head) + " before\n";
  t += row("persistent", format_signed_bytes(p.persistent_growth())) + "\n";
  t += row("total change", format_signed_bytes(p.total_change())) + "\n\n";
  return t;
}

// The first line (when the file was read) and, on a refusal, the error; true when refused.
bool start_result(const std::string& model, ExportResult& res) {
  const ExportOutcome& o = res.outcome;
  bool read = !(o.refusal == Refusal::Unreadable && o.input_operators == 0);
  if (read) res.out = model + "   " + std::to_string(o.input_operators) + " operators\n";
  if (o.refusal == Refusal::None) return false;
  res.exit_status = 1;
  res.error = "no model written: " + o.reason;
  return true;
}

}  // namespace

std::string format_bytes(int64_t bytes) {
  int64_t mag = bytes < 0 ? -bytes : bytes;
  if (mag < 1024) return std::to_string(bytes) + " B";
  if (mag < 1024 * 1024) return printf_string("%.2f KiB", static_cast<double>(bytes) / 1024.0);
  return printf_string("%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string format_signed_bytes(int64_t bytes) {
  std::string s(bytes >= 0 ? "+" : "");
  s += format_bytes(bytes);
  return s;
}

std::string describe_plan(const ExportPlan& p) {
  std::string s;
  for (const BandedRun& r : p.runs) {
    if (!s.empty()) s += ", ";
    s += run_text(r);
  }
  if (p.folded_pads == 1) s += ", 1 PAD operator folded";
  if (p.folded_pads > 1) s += ", " + std::to_string(p.folded_pads) + " PAD operators folded";
  s += printf_string(", %+.2f%% MACs; ", p.mac_overhead_percent());
  return s + std::to_string(p.operators_after) + " operators after export";
}

std::string default_output_path(const std::string& model) {
  std::filesystem::path p(model);
  return (p.parent_path() / (p.stem().string() + "_export.tflite")).string();
}

ExportResult run_export(const ExportRequest& req) {
  ExportResult res;
  res.outcome = plan_export_file(req.model, req.options);
  const ExportOutcome& o = res.outcome;
  if (start_result(req.model, res)) return res;
  res.written = req.output ? *req.output : default_output_path(req.model);
  try {
    res.written_bytes = tflite::write_model_file(o.model, res.written);
  } catch (const tflite::ModelError& e) {
    res.exit_status = 1;
    res.error = std::string("no model written: ") + e.what();
    res.written.clear();
    return res;
  }
  res.out += report_text(req.options, o.plan);
  res.out += "wrote " + res.written + "   " + format_bytes(static_cast<int64_t>(res.written_bytes)) + "\n";
  return res;
}

ExportResult export_to_memory(const std::vector<uint8_t>& bytes, const std::string& file, const ExportOptions& options,
                              std::vector<uint8_t>& model) {
  ExportResult res;
  res.outcome = plan_export_bytes(bytes, file, options);
  if (start_result(file, res)) return res;
  try {
    model = tflite::write_model(res.outcome.model);
  } catch (const tflite::ModelError& e) {
    res.exit_status = 1;
    res.error = std::string("no model written: ") + e.what();
    return res;
  }
  res.written_bytes = model.size();
  res.out += report_text(options, res.outcome.plan);
  return res;
}

}  // namespace tigris::exporter
