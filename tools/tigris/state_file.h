// `run --state FILE`: a plan's state buffer kept in a file between runs.
//
// Layout (little-endian): "TGRSSTAT", u32 format (1), u32 state bytes, u64 FNV-1a of the
// plan file, then the state bytes. The fingerprint ties the file to the plan that wrote it,
// so a recompiled or different plan is refused instead of reading another plan's variables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/tigris/files.h"

namespace tigris::cli {

// What `run` writes at a --state path: replaced only when it already holds a state file.
OutputKind state_file_kind();

uint64_t plan_fingerprint(const std::vector<uint8_t>& plan_bytes);

// The state bytes stored at `path` for this plan, or nothing when no file is there (the run
// starts from the plan's initial values). Failure naming the file when it is not a state
// file, is damaged, or belongs to another plan.
std::optional<std::vector<uint8_t>> read_state_file(const std::string& path, uint64_t fingerprint, size_t state_bytes);

// The state bytes a state file's contents hold, checked as read_state_file checks them
// (`path` names the file in the Failure).
std::vector<uint8_t> decode_state_file(const std::vector<uint8_t>& bytes, const std::string& path, uint64_t fingerprint,
                                       size_t state_bytes);

std::vector<uint8_t> encode_state_file(uint64_t fingerprint, const std::vector<uint8_t>& state);

}  // namespace tigris::cli
