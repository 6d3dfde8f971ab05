#include "tools/tigris/sizes.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A plain decimal: optional sign, digits with at most one '.', at least one digit.
bool is_decimal(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  bool digit = false, dot = false;
  for (; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      digit = true;
    } else if (s[i] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digit;
}

std::vector<int64_t> parse_dims(const std::string& text, const std::string& shape) {
  std::vector<int64_t> dims;
  size_t start = 0;
  while (true) {
    const size_t x = shape.find_first_of("xX", start);
    const std::string part = trim(shape.substr(start, x == std::string::npos ? std::string::npos : x - start));
    size_t digits = (!part.empty() && (part[0] == '-' || part[0] == '+')) ? 1 : 0;
    bool integer = digits < part.size() && part.size() - digits <= 12;
    for (size_t i = digits; i < part.size(); ++i)
      integer = integer && std::isdigit(static_cast<unsigned char>(part[i]));
    if (!integer) {
      throw UsageError("invalid --input-shape '" + text + "': dimensions must be integers");
    }
    const int64_t d = std::strtoll(part.c_str(), nullptr, 10);
    if (d <= 0) throw UsageError("invalid --input-shape '" + text + "': dimensions must be positive");
    dims.push_back(d);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return dims;
}

}  // namespace

int64_t parse_size(const std::string& text, const std::string& option) {
  const std::string s = lower(trim(text));
  std::string number = s;
  double scale = 1.0;
  for (const auto& [suffix, factor] :
       {std::pair<const char*, double>{"kb", 1024.0}, {"mb", 1048576.0}, {"k", 1024.0}, {"m", 1048576.0}, {"b", 1.0}}) {
    if (ends_with(s, suffix)) {
      number = trim(s.substr(0, s.size() - std::char_traits<char>::length(suffix)));
      scale = factor;
      break;
    }
  }
  if (!is_decimal(number)) {
    throw UsageError("invalid size '" + text + "' for " + option +
                     ": expected bytes or a number with a K, KB, M or MB suffix, like 256K or 1.5M");
  }
  const double bytes = std::strtod(number.c_str(), nullptr) * scale;
  if (!std::isfinite(bytes) || std::fabs(bytes) >= 9.0e15) {
    throw UsageError("invalid size '" + text + "' for " + option + ": too large");
  }
  return static_cast<int64_t>(std::trunc(bytes));
}

std::vector<int64_t> parse_pools(const std::vector<std::string>& values) {
  std::vector<int64_t> pools;
  for (const std::string& value : values) {
    size_t start = 0;
    while (true) {
      const size_t plus = value.find('+', start);
      const std::string part = value.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      if (trim(part).empty()) {
        throw UsageError("empty memory pool in --mem '" + value + "'");
      }
      pools.push_back(parse_size(part, "--mem"));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  }
  if (pools.size() > 2) {
    throw UsageError(std::to_string(pools.size()) + " memory pools given; the planner supports a fast and a slow pool");
  }
  return pools;
}

ShapeBinding parse_input_shape(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    throw UsageError("invalid --input-shape '" + text + "': expected name:1x3x224x224");
  }
  return ShapeBinding{text.substr(0, colon), parse_dims(text, text.substr(colon + 1))};
}

std::vector<ShapeBinding> parse_input_shapes(const std::vector<std::string>& values) {
  std::vector<ShapeBinding> out;
  for (const std::string& v : values) {
    ShapeBinding b = parse_input_shape(v);
    for (const ShapeBinding& prior : out) {
      if (prior.name == b.name) throw UsageError("--input-shape given twice for '" + b.name + "'");
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace tigris::cli
