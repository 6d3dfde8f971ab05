#include "tools/tigris/terminal_text.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace tigris::cli {
namespace {

// Length of the valid UTF-8 sequence at text[i] (shortest form, no surrogates, at most
// U+10FFFF) and its code point; 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view text, size_t i, uint32_t& code) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) {
    code = lead;
    return 1;
  }
  // Lead byte -> length, the payload bits it carries and the least code point of that length.
  size_t n = 0;
  uint32_t min = 0;
  if ((lead & 0xE0) == 0xC0) {
    n = 2;
    code = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    n = 3;
    code = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    n = 4;
    code = lead & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}

bool is_control(uint32_t code) { return code < 0x20 || (code >= 0x7F && code <= 0x9F); }

}  // namespace

std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    uint32_t code = 0;
    const size_t n = utf8_sequence(text, i, code);
    const bool keep = n > 0 && (!is_control(code) || (keep_newlines && code == '\n'));
    if (keep) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    // Escape the bytes of a control character (C1 ones are two bytes), or one invalid byte.
    const size_t bytes = n > 0 ? n : 1;
    for (size_t k = 0; k < bytes; ++k) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<uint8_t>(text[i + k])));
      out += hex;
    }
    i += bytes;
  }
  return out;
}

void print_report(const std::string& text) {
  const std::string safe = printable(text, true);
  std::fwrite(safe.data(), 1, safe.size(), stdout);
}

std::string json_text(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tigris::cli
