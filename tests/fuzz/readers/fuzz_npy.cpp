// libFuzzer target for the file readers `tigris run` uses: read_npy (.npy v1-v3), read_npz
// (ZIP archives of .npy members, stored or deflated) and the --state file reader. Refusals
// are cli::Failure; a crash, a sanitizer report or another exception type is a finding.
// An array that is read is written back and read again (it must round-trip); a state file is
// decoded for the plan its own header names (so the fuzzer reaches past the fingerprint), must
// encode back to the same bytes, and is refused for any other plan. The same file drives the
// corpus replay test fuzz_npy_corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "tools/tigris/arrays.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/state_file.h"

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_npy: %s\n", what);
  std::abort();
}

void check_round_trip(const tigris::cli::Array& a) {
  const tigris::cli::Array b = tigris::cli::read_npy(tigris::cli::write_npy(a), "round trip");
  if (b.dtype != a.dtype || b.shape != a.shape || b.data != a.data) finding("array does not round-trip");
}

uint64_t le(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | b[at + static_cast<size_t>(i)];
  return v;
}

void check_state_file(const std::vector<uint8_t>& bytes) {
  using namespace tigris::cli;
  const uint64_t fingerprint = bytes.size() >= 24 ? le(bytes, 16, 8) : 0;
  const size_t size = bytes.size() >= 24 ? static_cast<size_t>(le(bytes, 12, 4)) : 0;
  std::vector<uint8_t> state;
  try {
    state = decode_state_file(bytes, "x.state", fingerprint, size);
  } catch (const Failure&) {
    return;
  }
  if (state.size() != size || encode_state_file(fingerprint, state) != bytes) finding("state file does not round-trip");
  try {
    decode_state_file(bytes, "x.state", fingerprint + 1, size);
    finding("a state file is accepted for another plan");
  } catch (const Failure&) {}
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
  try {
    check_state_file(bytes);
  } catch (const std::exception& e) {
    finding(e.what());
  }
  return 0;
}
