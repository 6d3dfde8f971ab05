#include "tools/tigris/timeline_svg.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "compiler/report/format.h"

namespace tigris::cli {
namespace {

using report::format_bytes;

constexpr double kWidth = 960, kHeight = 420;
constexpr double kLeft = 80, kRight = 20, kTop = 40, kBottom = 60;

uint64_t aligned(uint64_t bytes) {
  return (bytes + TIGRIS_TENSOR_ALIGN - 1) / TIGRIS_TENSOR_ALIGN * TIGRIS_TENSOR_ALIGN;
}

// Execution step of every op: stages in order, each stage's ops in its listed order.
std::vector<int> op_steps(const tigris_plan_t& plan, int& steps) {
  std::vector<int> step(plan.header->num_ops, -1);
  steps = 0;
  for (uint32_t s = 0; s < plan.header->num_stages; ++s) {
    const tigris_stage_t& st = plan.stages[s];
    const uint16_t* ops = tigris_stage_ops(&plan, &st);
    for (uint32_t i = 0; i < st.ops_count; ++i) {
      if (ops[i] < step.size() && step[ops[i]] < 0) step[ops[i]] = steps++;
    }
  }
  return step;
}

// Live activation bytes per step with every tensor kept from its producer to its last
// reader (model inputs from the start, outputs to the end): no stages, no spills.
std::vector<uint64_t> unscheduled_live(const tigris_plan_t& plan, const std::vector<int>& step, int steps) {
  const uint32_t n = plan.header->num_tensors;
  std::vector<int> birth(n, steps), death(n, -1);
  for (uint32_t o = 0; o < plan.header->num_ops; ++o) {
    const tigris_op_t& op = plan.ops[o];
    if (step[o] < 0) continue;
    const uint16_t* in = tigris_op_inputs(&plan, &op);
    const uint16_t* out = tigris_op_outputs(&plan, &op);
    for (uint32_t i = 0; i < op.num_inputs; ++i) {
      if (in[i] < n) death[in[i]] = std::max(death[in[i]], step[o]);
    }
    for (uint32_t i = 0; i < op.num_outputs; ++i) {
      if (out[i] < n) {
        birth[out[i]] = std::min(birth[out[i]], step[o]);
        death[out[i]] = std::max(death[out[i]], step[o]);
      }
    }
  }
  std::vector<uint64_t> live(std::max(steps, 1), 0);
  for (uint32_t t = 0; t < n; ++t) {
    const tigris_tensor_t& tensor = plan.tensors[t];
    if (tensor.flags & TIGRIS_TENSOR_CONSTANT) continue;
    int b = birth[t], d = death[t];
    if (tensor.flags & TIGRIS_TENSOR_MODEL_INPUT) b = 0;
    if (tensor.flags & TIGRIS_TENSOR_MODEL_OUTPUT) d = steps - 1;
    for (int s = std::max(b, 0); s <= d && s < steps; ++s) live[s] += aligned(tensor.size_bytes);
  }
  return live;
}

// The largest fast_used reported while each step's op ran (events up to its OP event).
std::vector<uint64_t> measured_live(const TraceSummary& trace, const std::vector<int>& step, int steps) {
  std::vector<uint64_t> live(std::max(steps, 1), 0);
  uint64_t running = 0;
  for (const tigris_trace_event_t& e : trace.events) {
    running = std::max<uint64_t>(running, e.fast_used);
    if (e.kind == TIGRIS_TRACE_OP && e.op < step.size() && step[e.op] >= 0) {
      live[step[e.op]] = std::max(live[step[e.op]], running);
      running = e.fast_used;
    }
    if (e.kind == TIGRIS_TRACE_RESET || e.kind == TIGRIS_TRACE_STAGE_END) running = e.fast_used;
  }
  return live;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

struct Scale {
  int steps;
  double top_bytes;
  double x(double step) const { return kLeft + (kWidth - kLeft - kRight) * step / std::max(steps, 1); }
  double y(double bytes) const { return kHeight - kBottom - (kHeight - kTop - kBottom) * bytes / top_bytes; }
};

std::string step_curve(const std::vector<uint64_t>& live, const Scale& sc, const char* color, const char* dash) {
  std::string points;
  for (size_t s = 0; s < live.size(); ++s) {
    const double y = sc.y(double(live[s]));
    points += number(sc.x(double(s))) + "," + number(y) + " " + number(sc.x(double(s + 1))) + "," + number(y) + " ";
  }
  return "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"1.5\"" + dash + " points=\"" +
         points + "\"/>\n";
}

}  // namespace

std::string timeline_svg(const tigris_plan_t& plan, const TraceSummary& trace, uint64_t budget_bytes) {
  int steps = 0;
  const std::vector<int> step = op_steps(plan, steps);
  const std::vector<uint64_t> before = unscheduled_live(plan, step, steps);
  const std::vector<uint64_t> after = measured_live(trace, step, steps);
  uint64_t top = budget_bytes;
  for (uint64_t v : before) top = std::max(top, v);
  for (uint64_t v : after) top = std::max(top, v);
  const Scale sc{steps, double(std::max<uint64_t>(top, 1)) * 1.05};

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(kWidth) + "\" height=\"" +
                    number(kHeight) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  svg += "<title>" + escape(tigris_model_name(&plan)) + ": fast memory per step</title>\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + number(kLeft) + "\" y=\"20\" font-size=\"14\">" + escape(tigris_model_name(&plan)) +
         ": fast memory per operator, budget " + format_bytes(budget_bytes) + "</text>\n";

  // Units: tiled and chained stages shaded, boundaries drawn, spills marked.
  for (const TraceUnit& u : trace.units) {
    int first = steps, last = -1;
    for (size_t i = u.first_event; i < u.end_event; ++i) {
      const tigris_trace_event_t& e = trace.events[i];
      if (e.kind == TIGRIS_TRACE_OP && e.op < step.size() && step[e.op] >= 0) {
        first = std::min(first, step[e.op]);
        last = std::max(last, step[e.op]);
      }
    }
    if (last < 0) continue;
    const double x0 = sc.x(first), x1 = sc.x(last + 1);
    const std::string kind = trace_kind_name(u.path, u.stages, u.mode);
    if (u.path != TIGRIS_PATH_NORMAL) {
      const char* fill = u.path == TIGRIS_PATH_CHAIN ? "#d8f0d8" : "#fde3c8";
      svg += "<rect x=\"" + number(x0) + "\" y=\"" + number(kTop) + "\" width=\"" + number(x1 - x0) + "\" height=\"" +
             number(kHeight - kTop - kBottom) + "\" fill=\"" + fill + "\"><title>stage " + std::to_string(u.stage) +
             ": " + kind + ", " + std::to_string(u.tiles) + " tiles</title></rect>\n";
    }
    svg += "<line x1=\"" + number(x0) + "\" y1=\"" + number(kTop) + "\" x2=\"" + number(x0) + "\" y2=\"" +
           number(kHeight - kBottom) + "\" stroke=\"#bbbbbb\" stroke-width=\"0.5\"/>\n";
    if (u.written) {
      const double y = kHeight - kBottom + 6;
      svg += "<path d=\"M" + number(x1) + "," + number(y) + " l-4,8 l8,0 z\" fill=\"#7a4fb0\"><title>stage " +
             std::to_string(u.stage) + " spills " + format_bytes(u.written) + "</title></path>\n";
    }
  }

  svg += step_curve(before, sc, "#999999", " stroke-dasharray=\"4,3\"");
  svg += step_curve(after, sc, "#1f5fbf", "");
  const double by = sc.y(double(budget_bytes));
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(by) + "\" x2=\"" + number(kWidth - kRight) + "\" y2=\"" +
         number(by) + "\" stroke=\"#d62728\" stroke-width=\"1\"/>\n";

  // Axes and labels.
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(kHeight - kBottom) + "\" x2=\"" + number(kWidth - kRight) +
         "\" y2=\"" + number(kHeight - kBottom) + "\" stroke=\"black\"/>\n";
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(kTop) + "\" x2=\"" + number(kLeft) + "\" y2=\"" +
         number(kHeight - kBottom) + "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double bytes = sc.top_bytes * i / 4;
    svg += "<text x=\"" + number(kLeft - 6) + "\" y=\"" + number(sc.y(bytes) + 4) + "\" text-anchor=\"end\">" +
           format_bytes(uint64_t(bytes)) + "</text>\n";
  }
  svg += "<text x=\"" + number((kLeft + kWidth - kRight) / 2) + "\" y=\"" + number(kHeight - kBottom + 30) +
         "\" text-anchor=\"middle\">operator (execution order), " + std::to_string(steps) + " steps</text>\n";
  const double ly = kHeight - 12;
  svg +=
      "<text x=\"" + number(kLeft) + "\" y=\"" + number(ly) +
      "\"><tspan fill=\"#999999\">- - before scheduling</tspan>   <tspan fill=\"#1f5fbf\">— measured fast bytes</tspan>"
      "   <tspan fill=\"#d62728\">— budget</tspan>   <tspan fill=\"#e08a3c\">■ tiled</tspan>"
      "   <tspan fill=\"#4f9a4f\">■ chain</tspan>   <tspan fill=\"#7a4fb0\">▲ spill</tspan></text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace tigris::cli
