// Shared by the binding's files: bytes across the boundary, budgets from Python's values,
// and the exception translation that turns the CLI's two failure kinds into tigris.Error.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tigris::python {

namespace py = pybind11;

std::vector<uint8_t> to_vector(const py::bytes& bytes);
py::bytes to_bytes(const std::vector<uint8_t>& bytes);

// A size as Python gives it: an int (bytes) or a string the CLI reads ("256K", "1.5M");
// `option` names it in the message of a malformed string. None stays none.
std::optional<int64_t> size_of(const py::object& value, const std::string& option);

// cli::UsageError -> tigris.Error with exit_status 2; cli::Failure and the compiler's
// errors -> exit_status 1. The message is the CLI's line without "Error: ".
void register_error_translation();

void register_reports(py::module_& m);
void register_session(py::module_& m);

}  // namespace tigris::python
