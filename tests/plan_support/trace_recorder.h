// A trace callback that keeps every event the runtime emits (tigris_mem_set_trace), for the
// memory, executor and banded-path suites.
#pragma once

#include <cstddef>
#include <vector>

#include "tigris_trace.h"

namespace plantest {

struct Recorder {
  std::vector<tigris_trace_event_t> events;
  static void fn(const tigris_trace_event_t* e, void* ctx) { static_cast<Recorder*>(ctx)->events.push_back(*e); }
  std::vector<uint8_t> kinds() const {
    std::vector<uint8_t> k;
    for (const auto& e : events) k.push_back(e.kind);
    return k;
  }
  size_t count(uint8_t kind) const {
    size_t n = 0;
    for (const auto& e : events) n += e.kind == kind;
    return n;
  }
};

}  // namespace plantest
