#include "compiler/ir/layout.h"

namespace tigris::ir {

std::vector<int64_t> to_channels_last_perm(int rank) {
  std::vector<int64_t> perm;
  if (rank < 2) {
    for (int i = 0; i < rank; ++i) perm.push_back(i);
    return perm;
  }
  perm.push_back(0);
  for (int i = 2; i < rank; ++i) perm.push_back(i);
  perm.push_back(1);
  return perm;
}

std::vector<int64_t> to_channels_first_perm(int rank) {
  std::vector<int64_t> perm;
  if (rank < 2) {
    for (int i = 0; i < rank; ++i) perm.push_back(i);
    return perm;
  }
  perm.push_back(0);
  perm.push_back(rank - 1);
  for (int i = 1; i < rank - 1; ++i) perm.push_back(i);
  return perm;
}

int64_t stored_axis(Layout layout, int rank, int64_t axis) {
  if (layout == Layout::Model || rank < 2) return axis;
  if (axis == 0) return 0;
  if (axis == 1) return rank - 1;
  return axis - 1;
}

}  // namespace tigris::ir
