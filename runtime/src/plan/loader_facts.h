// For the plan writer (and tools that state tile facts): load a plan with every check but
// step 29, so the facts of its schema 11 records can be derived from the plan itself
// (band_rules.h) before they are written. Never used to run a plan.
#pragma once

#include "tigris.h"

namespace tigris_rt {

tigris_error_t load_plan_unverified_facts(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan);

}  // namespace tigris_rt
