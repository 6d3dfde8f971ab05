// Text bound for the terminal. Reports and errors quote names read from model and plan
// files (tensors, nodes, operators, the model), which may hold any bytes: every byte that
// is not part of printable UTF-8 is written as \xNN, so control bytes never reach the
// terminal and every line printed is valid UTF-8.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace tigris::cli {

// `text` with control characters (C0, DEL, C1) and bytes of invalid UTF-8 as \xNN; a
// newline is kept when `keep_newlines` (reports), escaped otherwise (one-line messages).
std::string printable(std::string_view text, bool keep_newlines);

// A report on stdout, through printable(text, true).
void print_report(const std::string& text);

// JSON for stdout, two-space indented; invalid UTF-8 in strings becomes U+FFFD (JSON
// itself escapes control characters).
std::string json_text(const nlohmann::json& json);

}  // namespace tigris::cli
