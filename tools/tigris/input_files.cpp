#include "tools/tigris/input_files.h"

#include <cstring>
#include <map>

#include "tools/tigris/cli_errors.h"
#include "tools/tigris/files.h"

namespace tigris::cli {
namespace {

struct InputFile {
  std::string name;  // "" for a bare path
  std::string path;
};

bool starts_with(const std::vector<uint8_t>& b, const char* magic, size_t n) {
  return b.size() >= n && std::memcmp(b.data(), magic, n) == 0;
}

std::string input_names(const std::vector<IfaceSpec>& specs) {
  std::string names;
  for (const IfaceSpec& s : specs) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

// NAME=FILE when the text before the first '=' names a model input; otherwise a bare path,
// which must then exist (`--input bogus=x.npy` names an input the model lacks).
std::vector<InputFile> split_inputs(const std::vector<std::string>& args, const std::vector<IfaceSpec>& specs) {
  std::vector<InputFile> out;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    bool named = false;
    if (eq != std::string::npos) {
      for (const IfaceSpec& s : specs) named = named || s.name == arg.substr(0, eq);
    }
    if (eq != std::string::npos && !named && !path_exists(arg)) {
      throw Failure("--input " + arg + ": the model has no input '" + arg.substr(0, eq) + "'; its inputs are " +
                    input_names(specs));
    }
    out.push_back(named ? InputFile{arg.substr(0, eq), arg.substr(eq + 1)} : InputFile{"", arg});
  }
  return out;
}

const IfaceSpec* find_spec(const std::vector<IfaceSpec>& specs, const std::string& name) {
  for (const IfaceSpec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Adds what one --input file provides to `given` (input name -> bytes for the plan).
void read_input(const InputFile& in, const std::vector<IfaceSpec>& specs,
                std::map<std::string, std::vector<uint8_t>>& given) {
  const std::vector<uint8_t> bytes = read_file(in.path);
  const auto provide = [&](const IfaceSpec& spec, std::vector<uint8_t> data) {
    if (!given.emplace(spec.name, std::move(data)).second) throw Failure("input '" + spec.name + "' is given twice");
  };
  if (starts_with(bytes, "PK\x03\x04", 4) || starts_with(bytes, "PK\x05\x06", 4)) {
    const std::vector<NamedArray> members = read_npz(bytes, in.path);
    if (members.empty()) throw Failure(in.path + ": empty archive");
    // NAME=FILE.npz and a single-input model take the archive's only member whatever its name.
    const IfaceSpec* only = !in.name.empty() ? find_spec(specs, in.name) : specs.size() == 1 ? &specs[0] : nullptr;
    if (only && members.size() == 1) {
      provide(*only, array_to_plan(members[0].array, *only, in.path + ":" + members[0].name));
      return;
    }
    for (const NamedArray& m : members) {
      const IfaceSpec* spec = find_spec(specs, m.name);
      if (!spec || (!in.name.empty() && m.name != in.name)) {
        throw Failure(in.path + ": member '" + m.name + "' names no input of the model; its inputs are " +
                      input_names(specs));
      }
      provide(*spec, array_to_plan(m.array, *spec, in.path + ":" + m.name));
    }
    return;
  }
  if (in.name.empty() && specs.size() != 1) {
    throw Failure(specs.empty()
                      ? "the model takes no inputs"
                      : "multiple-input models require NAME=FILE for each input; its inputs are " + input_names(specs));
  }
  const IfaceSpec* spec = in.name.empty() ? &specs[0] : find_spec(specs, in.name);
  if (starts_with(bytes, "\x93NUMPY", 6)) {
    provide(*spec, array_to_plan(read_npy(bytes, in.path), *spec, in.path));
  } else {
    provide(*spec, raw_to_plan(bytes, *spec, in.path));
  }
}

}  // namespace

std::vector<InputPath> input_file_paths(const std::vector<std::string>& args) {
  std::vector<InputPath> paths;
  for (const std::string& arg : args) {
    paths.push_back({"input", arg});
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) paths.push_back({"input", arg.substr(eq + 1)});
  }
  return paths;
}

std::vector<std::vector<uint8_t>> gather_inputs(const std::vector<std::string>& args,
                                                const std::vector<IfaceSpec>& specs) {
  const std::vector<InputFile> files = split_inputs(args, specs);
  std::map<std::string, std::vector<uint8_t>> given;
  for (const InputFile& f : files) read_input(f, specs, given);
  std::vector<std::vector<uint8_t>> ordered;
  for (const IfaceSpec& s : specs) {
    auto it = given.find(s.name);
    if (it == given.end()) throw Failure("input '" + s.name + "' is missing (--input " + s.name + "=FILE)");
    ordered.push_back(std::move(it->second));
  }
  return ordered;
}

}  // namespace tigris::cli
