// Greedy first-fit placement in the order TFLite Micro uses (see docs/export.md):
// offline buffers first, then online ones by size descending, ties with the higher
// planner index first; each is placed at the lowest offset, walking the placed buffers
// that overlap it in time in ascending offset order, where the gap before the next one
// holds it.
#include "export/tflm/planner.h"

#include <algorithm>
#include <list>

namespace tigris::tflm {
namespace {

bool overlaps(const PlannedBuffer& a, const PlannedBuffer& b) { return !(a.first > b.last || b.first > a.last); }

std::vector<size_t> placement_order(const std::vector<PlannedBuffer>& buffers) {
  std::vector<size_t> offline, online;
  for (size_t i = 0; i < buffers.size(); ++i) (buffers[i].offline_offset >= 0 ? offline : online).push_back(i);
  std::reverse(online.begin(), online.end());  // filled from the back: descending index
  std::stable_sort(online.begin(), online.end(), [&](size_t a, size_t b) { return buffers[a].size > buffers[b].size; });
  offline.insert(offline.end(), online.begin(), online.end());
  return offline;
}

}  // namespace

int64_t plan_greedy(std::vector<PlannedBuffer>& buffers) {
  if (buffers.empty()) return 0;
  std::vector<size_t> order = placement_order(buffers);
  std::list<size_t> by_offset;  // placed buffers, ascending offset, insertion order on ties
  for (size_t k = 0; k < order.size(); ++k) {
    PlannedBuffer& want = buffers[order[k]];
    int64_t candidate = 0;
    if (want.offline_offset >= 0) {
      candidate = want.offline_offset;
    } else if (k > 0) {
      for (size_t placed : by_offset) {
        const PlannedBuffer& other = buffers[placed];
        if (!overlaps(other, want)) continue;
        if (other.offset - candidate >= want.size) break;
        candidate = std::max(candidate, other.offset + other.size);
      }
    }
    want.offset = candidate;
    auto pos = std::find_if(by_offset.begin(), by_offset.end(),
                            [&](size_t placed) { return buffers[placed].offset > candidate; });
    by_offset.insert(pos, order[k]);
  }
  int64_t head = 0;
  for (const PlannedBuffer& b : buffers) head = std::max(head, b.offset + b.size);
  return head;
}

}  // namespace tigris::tflm
