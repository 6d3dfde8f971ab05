// Model inputs given on the command line (`--input FILE`, `--input NAME=FILE`; .npy,
// .npz or raw .bin), read and converted to the bytes tigris_input_write takes. Shared
// by `run` and `analyze --trace`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/tigris/files.h"
#include "tools/tigris/iface_arrays.h"

namespace tigris::cli {

// One entry per spec, in spec order. Failure names the file or input that is missing,
// given twice, of the wrong shape or dtype.
std::vector<std::vector<uint8_t>> gather_inputs(const std::vector<std::string>& args,
                                                const std::vector<IfaceSpec>& specs);

// The paths the --input arguments may read (FILE, and FILE of NAME=FILE), for the output rule.
std::vector<InputPath> input_file_paths(const std::vector<std::string>& args);

}  // namespace tigris::cli
