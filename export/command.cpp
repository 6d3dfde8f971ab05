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

std::string report_text(const ExportRequest& req, const ExportResult& res) {
  const ExportPlan& p = res.outcome.plan;
  std::string t = describe_plan(p) + "\n\n";
  t += std::string("TFLite Micro arena, reference kernels on ") + tflm::target_name(req.options.target) + "\n";
  t += row("head", format_bytes(p.after.head)) + "   " + format_bytes(p.before.head) + " before\n";
  t += row("persistent", format_signed_bytes(p.persistent_growth())) + "\n";
  t += row("total change", format_signed_bytes(p.total_change())) + "\n\n";
  t += "wrote " + res.written + "   " + format_bytes(static_cast<int64_t>(res.written_bytes)) + "\n";
  return t;
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
  bool read = !(o.refusal == Refusal::Unreadable && o.input_operators == 0);
  if (read) res.out = req.model + "   " + std::to_string(o.input_operators) + " operators\n";
  if (o.refusal != Refusal::None) {
    res.exit_status = 1;
    res.error = "no model written: " + o.reason;
    return res;
  }
  res.written = req.output ? *req.output : default_output_path(req.model);
  try {
    res.written_bytes = tflite::write_model_file(o.model, res.written);
  } catch (const tflite::ModelError& e) {
    res.exit_status = 1;
    res.error = std::string("no model written: ") + e.what();
    res.written.clear();
    return res;
  }
  res.out += report_text(req, res);
  return res;
}

}  // namespace tigris::exporter
