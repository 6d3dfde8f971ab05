// TFLite Micro's GreedyMemoryPlanner, replicated placement for placement: the head of the
// arena depends on its ordering and tie-breaks, not just on the lifetimes.
#pragma once

#include <cstdint>
#include <vector>

namespace tigris::tflm {

struct PlannedBuffer {
  int64_t size = 0;             // bytes, already rounded up to 16
  int32_t first = 0, last = 0;  // inclusive lifetime in operator steps
  int64_t offline_offset = -1;  // >= 0: placed there, before every online buffer
  int64_t offset = 0;           // out: the planner's offset
};

// Places every buffer (fills `offset`) and returns the head: max(offset + size).
int64_t plan_greedy(std::vector<PlannedBuffer>& buffers);

}  // namespace tigris::tflm
