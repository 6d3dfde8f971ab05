// Reading input files and writing output files all-or-nothing.
//
// Inputs are regular files of at most kMaxInputBytes. Outputs go to a temporary file in
// the destination's directory and are moved into place only once complete, so a failed
// or interrupted command never leaves a partial file under the requested name. The
// output rule every command follows (docs/cli.md, "Output files"):
//   - an output path that is one of the command's inputs, or another of its outputs, is
//     a usage error (same device and inode when the file exists, so links are caught;
//     same normalized path otherwise);
//   - an existing file is replaced only when it holds what the command writes there (an
//     earlier plan, model, array, picture, generated C); anything else is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tigris::cli {

// 2 GiB, the most a protobuf (ONNX) or FlatBuffers (TFLite) file can hold.
constexpr uint64_t kMaxInputBytes = uint64_t{2} << 30;

// Whole file; Failure `<path>: no such file` (or is a directory, is not a regular file,
// is larger than kMaxInputBytes, or the OS reason). Never blocks on a FIFO.
std::vector<uint8_t> read_file(const std::string& path);

// One file under two names: same device and inode when both exist, else same normalized path.
bool same_file(const std::string& a, const std::string& b);

// What a command writes at an output path. `holds` recognizes it from the first bytes of an
// existing file (nullptr: the kind has no signature, so an existing file is never replaced).
struct OutputKind {
  const char* name;  // "a TiGrIS plan": `<path> exists and is not a TiGrIS plan; not replaced`
  bool (*holds)(std::string_view head);
};
struct OutputFile {
  std::string path;
  OutputKind kind;
};
struct InputPath {
  std::string role;  // "model": `the output <path> is the model itself`
  std::string path;
};

// The output rule above, checked before any work: UsageError for an output that is an input
// or another output, Failure for an existing file of another kind.
void check_outputs(const std::vector<InputPath>& inputs, const std::vector<OutputFile>& outputs);

// Writes `bytes` at out.path under the output rule (the kind is checked again).
void write_output(const OutputFile& out, const std::vector<uint8_t>& bytes);

// True when an existing file at `path` holds `kind` (false when nothing is there).
bool holds_kind(const std::string& path, const OutputKind& kind);

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
