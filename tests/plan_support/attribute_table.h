// The attribute section of an in-memory plan, as the loader expects it: records sorted by
// operator then kind, each pointing into one data pool (never empty). Shared by the float and
// int8 kernel fixtures, which lay out plans by hand without the plan writer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tigris.h"

namespace plantest {

struct AttrSpec {
  uint16_t op;
  uint8_t kind;
  std::vector<uint8_t> data;
};

inline void lay_out_attributes(std::vector<AttrSpec>& attrs, std::vector<tigris_op_attribute_t>& records,
                               std::vector<uint8_t>& pool) {
  std::stable_sort(attrs.begin(), attrs.end(),
                   [](const AttrSpec& a, const AttrSpec& b) { return a.op != b.op ? a.op < b.op : a.kind < b.kind; });
  records.clear();
  pool.clear();
  for (const AttrSpec& a : attrs) {
    tigris_op_attribute_t r{};
    r.op_index = a.op;
    r.type = a.kind;
    r.data_len = (uint8_t)a.data.size();
    r.data_offset = (uint32_t)pool.size();
    pool.insert(pool.end(), a.data.begin(), a.data.end());
    records.push_back(r);
  }
  if (pool.empty()) pool.push_back(0);
}

}  // namespace plantest
