#include "tools/tigris/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

std::string reason(int err) {
  if (err == ENOENT) return "no such file";
  if (err == EISDIR) return "is a directory";
  if (err == EACCES) return "permission denied";
  return std::strerror(err);
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes everything or reports errno.
bool write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Failure(path + ": " + reason(errno));
  if (S_ISDIR(st.st_mode)) throw Failure(path + ": is a directory");
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked on the open file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Failure(path + ": " + reason(errno));
  const auto refuse = [&](const std::string& why) {
    ::close(fd);
    throw Failure(path + ": " + why);
  };
  if (::fstat(fd, &st) != 0) refuse(reason(errno));
  if (S_ISDIR(st.st_mode)) refuse("is a directory");
  if (!S_ISREG(st.st_mode)) refuse("not a regular file (a device, FIFO or socket); give a file");
  const std::string too_large = "larger than " + std::to_string(kMaxInputBytes >> 30) + " GiB, more than tigris reads";
  if (static_cast<uint64_t>(st.st_size) > kMaxInputBytes) refuse(too_large);
  std::vector<uint8_t> bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  uint8_t chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      refuse(reason(errno));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
    if (bytes.size() > kMaxInputBytes) refuse(too_large);  // the file grew while being read
  }
  ::close(fd);
  return bytes;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  // At least one does not exist: compare the paths, their existing directories resolved.
  std::error_code ec_a, ec_b;
  const auto pa = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec_a), ec_a);
  const auto pb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec_b), ec_b);
  if (ec_a || ec_b) return std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal();
  return pa == pb;
}

bool holds_kind(const std::string& path, const OutputKind& kind) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  char head[512];
  ssize_t n = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::read(fd, head, sizeof head);
  ::close(fd);
  return n >= 0 && kind.holds && kind.holds(std::string_view(head, static_cast<size_t>(n)));
}

void check_outputs(const std::vector<InputPath>& inputs, const std::vector<OutputFile>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& out = outputs[i].path;
    for (const InputPath& in : inputs) {
      if (same_file(out, in.path)) {
        throw UsageError("the output " + out + " is the " + in.role + (out == in.path ? "" : " " + in.path) +
                         " itself; choose another output");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (same_file(out, outputs[j].path)) {
        throw UsageError("two outputs are one file: " + outputs[j].path + " and " + out);
      }
    }
    if (!path_exists(out)) continue;
    if (!outputs[i].kind.holds) throw Failure(out + " already exists");
    if (!holds_kind(out, outputs[i].kind)) {
      throw Failure(out + " exists and is not " + outputs[i].kind.name + "; not replaced");
    }
  }
}

void write_output(const OutputFile& out, const std::vector<uint8_t>& bytes) {
  check_outputs({}, {out});
  write_file_atomic(out.path, bytes, path_exists(out.path) ? IfExists::kReplace : IfExists::kRefuse);
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void require_absent(const std::string& path) {
  if (path_exists(path)) throw Failure(path + " already exists");
}

void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes, IfExists policy) {
  if (policy == IfExists::kRefuse) require_absent(path);
  std::string temp = directory_of(path) + "/." + file_name(path) + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw Failure("cannot write " + path + ": " + reason(errno));
  const bool written = write_all(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  const int write_err = errno;
  ::fchmod(fd, 0666 & ~current_umask());  // mkstemp creates 0600; give the usual mode
  if (::close(fd) != 0 || !written) {
    ::unlink(temp.c_str());
    throw Failure("cannot write " + path + ": " + reason(written ? errno : write_err));
  }
  // link() creates the name only if nothing is there: an exclusive create in one step.
  const int moved =
      policy == IfExists::kReplace ? ::rename(temp.c_str(), path.c_str()) : ::link(temp.c_str(), path.c_str());
  const int move_err = errno;
  if (policy == IfExists::kRefuse || moved != 0) ::unlink(temp.c_str());
  if (moved != 0) {
    if (move_err == EEXIST) throw Failure(path + " already exists");
    throw Failure("cannot write " + path + ": " + reason(move_err));
  }
}

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string file_stem(const std::string& path) {
  const std::string name = file_name(path);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

std::string file_extension(const std::string& path) {
  const std::string name = file_name(path);
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string ext = name.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace tigris::cli
