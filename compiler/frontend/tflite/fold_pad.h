// PAD folded into the convolution it feeds, where that is exact (fold_pad.cpp).
#pragma once

#include "compiler/ir/graph.h"

namespace tigris::frontend::tflite {

void fold_pads_into_convolutions(ir::Graph& g);

}  // namespace tigris::frontend::tflite
