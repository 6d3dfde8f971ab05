// libFuzzer target for the array readers `tigris run` uses for its inputs: read_npy
// (.npy v1-v3) and read_npz (ZIP archives of .npy members, stored or deflated). Refusals
// are cli::Failure; a crash, a sanitizer report or another exception type is a finding.
// An array that is read is written back and read again (it must round-trip). The same
// file drives the corpus replay test fuzz_npy_corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "tools/tigris/arrays.h"
#include "tools/tigris/cli_errors.h"

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_npy: %s\n", what);
  std::abort();
}

void check_round_trip(const tigris::cli::Array& a) {
  const tigris::cli::Array b = tigris::cli::read_npy(tigris::cli::write_npy(a), "round trip");
  if (b.dtype != a.dtype || b.shape != a.shape || b.data != a.data) finding("array does not round-trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tigris::cli;
  const std::vector<uint8_t> bytes(data, data + size);
  try {
    check_round_trip(read_npy(bytes, "x.npy"));
  } catch (const Failure&) {
  } catch (const std::exception& e) {
    finding(e.what());
  }
  try {
    for (const NamedArray& m : read_npz(bytes, "x.npz")) check_round_trip(m.array);
  } catch (const Failure&) {
  } catch (const std::exception& e) {
    finding(e.what());
  }
  return 0;
}
