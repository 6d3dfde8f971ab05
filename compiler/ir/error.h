// The compiler's one error type: a one-line message plus the operators and tensors
// it concerns, so callers can report or test on names without parsing text.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tigris::ir {

enum class ErrorKind {
  Io,           // the file cannot be read
  Parse,        // not a model of a known format, truncated or corrupt
  Invalid,      // the model breaks its format's rules (checker, shapes, attributes)
  Unsupported,  // a construct the compiler does not handle (external data, an operator)
  Usage,        // a bad option (an --input-shape that names no input...)
  Budget,       // no plan fits the given memory
  Internal      // a broken invariant inside the compiler
};

class CompileError : public std::runtime_error {
 public:
  CompileError(ErrorKind kind, const std::string& message, std::vector<std::string> ops = {},
               std::vector<std::string> tensors = {})
      : std::runtime_error(message), kind_(kind), ops_(std::move(ops)), tensors_(std::move(tensors)) {}

  ErrorKind kind() const { return kind_; }
  const std::vector<std::string>& ops() const { return ops_; }
  const std::vector<std::string>& tensors() const { return tensors_; }

 private:
  ErrorKind kind_;
  std::vector<std::string> ops_;
  std::vector<std::string> tensors_;
};

}  // namespace tigris::ir
