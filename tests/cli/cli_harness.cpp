#include "cli/cli_harness.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace tigris::clitest {

CliResult run_program(const std::string& program, const std::vector<std::string>& args, const std::string& cwd) {
  TempDir capture;
  const std::string out_path = capture.file("stdout"), err_path = capture.file("stderr");
  // A shell gives us the working directory and the redirections; arguments are quoted.
  const auto quote = [](const std::string& s) {
    std::string q = "'";
    for (const char c : s) {
      if (c == '\'') {
        q.append("'\\''");
      } else {
        q.push_back(c);
      }
    }
    q.push_back('\'');
    return q;
  };
  std::string command;
  if (!cwd.empty()) command.append("cd ").append(quote(cwd)).append(" && ");
  command.append(quote(program));
  for (const auto& a : args) command.append(" ").append(quote(a));
  command.append(" >").append(quote(out_path)).append(" 2>").append(quote(err_path)).append(" </dev/null");
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    throw std::runtime_error("cannot start " + program);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

CliResult run_cli(const std::vector<std::string>& args, const std::string& cwd) {
  return run_program(TIGRIS_CLI_BINARY, args, cwd);
}

TempDir::TempDir() {
  std::string templ = std::string(TIGRIS_BINARY_DIR) + "/tests/cli-scratch-XXXXXX";
  std::filesystem::create_directories(std::string(TIGRIS_BINARY_DIR) + "/tests");
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string read_text(const std::string& path) {
  const auto b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

}  // namespace tigris::clitest
