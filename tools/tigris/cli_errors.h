// The two ways a subcommand stops early. main() maps them to exit codes:
// UsageError -> 2 (the command line itself is wrong), Failure -> 1 (`Error: <what, where>`).
#pragma once

#include <stdexcept>
#include <string>

namespace tigris::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tigris::cli
