// `tigris analyze --svg FILE`: the memory timeline of a compiled plan as a picture.
// The x axis is the plan's execution order (one step per operator); two curves show
// the fast bytes live at each step before scheduling (the whole graph held at once)
// and after (measured on the host runtime during a traced run); the budget line,
// stage boundaries, tiled and chained stages shaded, spills marked.
#pragma once

#include <cstdint>
#include <string>

#include "tigris.h"
#include "tools/tigris/trace_report.h"

namespace tigris::cli {

std::string timeline_svg(const tigris_plan_t& plan, const TraceSummary& trace, uint64_t budget_bytes);

}  // namespace tigris::cli
