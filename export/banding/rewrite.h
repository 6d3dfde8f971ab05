// Rewriting one run into row bands: per band a SLICE of the input rows it reads (halo
// included), PAD / PADV2 for the padding its edges need, copies of the run's operators
// with VALID padding sharing the original weights; a CONCATENATION of the band outputs
// writes the run's original output tensor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "export/banding/runs.h"
#include "export/tflite/model.h"

namespace tigris::banding {

struct BandPlan {
  Run run;
  int bands = 2;
};

// The output rows of band k of `bands` over `height` rows (earlier bands get fewer rows
// when the split is uneven).
Rows band_rows(int64_t height, int bands, int k);

// The rewritten model; operator indices before the run are unchanged, the band
// operators and the CONCATENATION replace the run. `generated` (if given) receives, per
// operator of the result, whether the rewrite created it. nullopt (with `why`) when a
// band would read no row of a tensor.
std::optional<tflite::Model> rewrite_run(const tflite::Model& m, const BandPlan& plan, std::vector<bool>* generated,
                                         std::string* why);

}  // namespace tigris::banding
