// Reading input files and writing output files all-or-nothing.
//
// Outputs go to a temporary file in the destination's directory and are moved into
// place only once complete, so a failed or interrupted command never leaves a
// partial file under the requested name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::cli {

// Whole file; Failure `<path>: no such file` (or is a directory, or the OS reason).
std::vector<uint8_t> read_file(const std::string& path);

bool path_exists(const std::string& path);

// Failure `<path> already exists` when something is at `path`.
void require_absent(const std::string& path);

enum class IfExists {
  kRefuse,   // the file must not exist: created exclusively, `<path> already exists` otherwise
  kReplace,  // an existing file is replaced in one step
};

void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes, IfExists policy);

// The final component of a path, and that component without its last extension.
std::string file_name(const std::string& path);
std::string file_stem(const std::string& path);
// Lower-case extension with its dot (".npy"), or "" when there is none.
std::string file_extension(const std::string& path);

}  // namespace tigris::cli
