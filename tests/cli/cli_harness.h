// Running the built `tigris` binary from tests, and scratch directories.
#pragma once

#include <string>
#include <vector>

namespace tigris::clitest {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs `tigris args...` (TIGRIS_CLI_BINARY) in `cwd` (default: the current directory).
CliResult run_cli(const std::vector<std::string>& args, const std::string& cwd = "");

// Runs any program by path.
CliResult run_program(const std::string& program, const std::vector<std::string>& args, const std::string& cwd = "");

// A fresh directory under the build tree, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const;  // names in the directory, sorted

 private:
  std::string path_;
};

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
std::vector<uint8_t> read_bytes(const std::string& path);
std::string read_text(const std::string& path);

}  // namespace tigris::clitest
