// tigris._tigris: the compiled half of the Python module. A thin shell over the library
// calls the CLI makes (tools/tigris, compiler/report, export); python/tigris/ wraps it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <new>
#include <string>

#include "compiler/ir/error.h"
#include "python/src/convert.h"
#include "tigris.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/files.h"
#include "tools/tigris/sizes.h"

namespace tigris::python {

std::vector<uint8_t> to_vector(const py::bytes& bytes) {
  const std::string_view view = bytes;
  return std::vector<uint8_t>(view.begin(), view.end());
}

py::bytes to_bytes(const std::vector<uint8_t>& bytes) {
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::optional<int64_t> size_of(const py::object& value, const std::string& option) {
  if (value.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(value)) return cli::parse_size(value.cast<std::string>(), option);
  if (py::isinstance<py::bool_>(value) || !py::isinstance<py::int_>(value)) {
    throw cli::UsageError(option + " must be a size in bytes or a string like '256K', not " +
                          py::repr(value).cast<std::string>());
  }
  return value.cast<int64_t>();
}

namespace {

// Sets tigris.Error(message, exit_status) as the pending Python exception; the message on
// one line as the CLI prints it.
void set_error(std::string message, int exit_status) {
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  const py::object error = py::module_::import("tigris._errors").attr("Error");
  PyErr_SetObject(error.ptr(), error(message, exit_status).ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const py::error_already_set&) {
    throw;  // a Python exception on its way back
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError
  } catch (const cli::UsageError& e) {
    set_error(e.what(), 2);
  } catch (const ir::CompileError& e) {
    set_error(e.what(), e.kind() == ir::ErrorKind::Usage ? 2 : 1);
  } catch (const std::exception& e) {
    // As the CLI: every other failure is `Error: <what>`, exit status 1.
    set_error(e.what(), 1);
  }
}

}  // namespace

void register_error_translation() { py::register_exception_translator(translate); }

}  // namespace tigris::python

PYBIND11_MODULE(_tigris, m) {
  using namespace tigris;
  namespace py = pybind11;
  m.doc() = "TiGrIS compiler and host runtime (the tigris package wraps this module)";
  m.attr("version") = TIGRIS_VERSION_STRING;
  m.attr("runtime_version") = std::to_string(TIGRIS_RUNTIME_VERSION_MAJOR) + "." +
                              std::to_string(TIGRIS_RUNTIME_VERSION_MINOR) + "." +
                              std::to_string(TIGRIS_RUNTIME_VERSION_PATCH);
  m.def(
      "read_file", [](const std::string& path) { return python::to_bytes(cli::read_file(path)); }, py::arg("path"));
  m.def(
      "parse_size", [](const py::object& value, const std::string& option) { return python::size_of(value, option); },
      py::arg("value"), py::arg("option"));
  python::register_error_translation();
  python::register_reports(m);
  python::register_session(m);
}
