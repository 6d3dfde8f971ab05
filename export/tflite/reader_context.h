// Shared by the reader's files: error reporting and schema-slot checks.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "export/tflite/model.h"

namespace tigris::tflite::detail {

struct ReadContext {
  std::string file;
  bool lenient = false;
  Model* model = nullptr;

  // A part of the file the model does not carry: refuse, or record it when lenient.
  void uncarried(const std::string& why) const {
    if (!lenient) throw ModelError(file, why);
    model->uncarried.push_back(why);
  }
  // A file that cannot be represented at all (broken indices and the like).
  [[noreturn]] void fatal(const std::string& why) const { throw ModelError(file, why); }

  // Refuses every field of `table` set in the file whose slot is not in `carried`
  // (bit i = slot i). Catches fields newer than our schema and deprecated ones.
  void check_slots(const void* table, const char* table_name, uint64_t carried) const {
    auto* t = reinterpret_cast<const flatbuffers::Table*>(table);
    const uint8_t* vtable = t->GetVTable();
    auto vsize = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
    for (unsigned slot = 0; 4 + 2 * slot + 2 <= vsize; ++slot) {
      auto off = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable + 4 + 2 * slot);
      bool known = slot < 64 && ((carried >> slot) & 1u);
      if (off != 0 && !known)
        uncarried(std::string("the ") + table_name + " table sets field " + std::to_string(slot) +
                  ", which is not supported");
    }
  }
};

// Mask of slots [0, n).
constexpr uint64_t slots_below(unsigned n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }

// Scalar vectors, element by element through memcpy: the verifier checks only that a
// vector's length word is 4-aligned, so the elements of an int64 vector (zero_point) may
// sit at an address that is not 8-aligned, where reading them as int64_t is undefined
// (found by fuzz_tflite, tests/fuzz/readers/corpus_tflite/crash_misaligned_int64).
template <class T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  static_assert(std::is_arithmetic_v<T>, "scalar vectors only");
  if (!v) return {};
  std::vector<T> out(v->size());
  const uint8_t* p = v->Data();
  for (size_t i = 0; i < out.size(); ++i) {
    T x;
    std::memcpy(&x, p + i * sizeof(T), sizeof(T));
    out[i] = flatbuffers::EndianScalar(x);
  }
  return out;
}

}  // namespace tigris::tflite::detail
