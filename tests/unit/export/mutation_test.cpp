// Corrupted models: the reader either reads them or refuses with a ModelError, and what it
// reads the arena model and the run finder survive (run under ASan/UBSan to be sure).
#include <gtest/gtest.h>

#include <random>

#include "export/banding/rewrite.h"
#include "export/banding/runs.h"
#include "export/tflite/reader.h"
#include "export/tflite/writer.h"
#include "export/tflm/arena.h"

namespace {

using namespace tigris;

void exercise(const std::vector<uint8_t>& bytes, int* read, int* refused) {
  tflite::Model m;
  try {
    m = tflite::read_model(bytes, "mutated", tflite::ReadOptions{.lenient = true});
  } catch (const tflite::ModelError& e) {
    EXPECT_FALSE(e.reason().empty());
    ++*refused;
    return;
  }
  ++*read;
  try {
    tflm::compute_arena(m, tflm::Target::ArmNoneEabi);
  } catch (const tflm::ArenaError&) {
    return;
  }
  if (m.uncarried.empty()) {
    EXPECT_NO_THROW(tflite::write_model(m));
  }
  auto ops = banding::band_ops(m);
  std::string why;
  for (const banding::Run& r : banding::candidate_runs(m, ops)) banding::rewrite_run(m, {r, 2}, nullptr, &why);
}

TEST(Mutations, ReaderRefusesOrReads) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  std::vector<uint8_t> base = tflite::read_file_bytes(std::string(TIGRIS_MODELS_DIR) + "/tflite/kws_ref_model.tflite");
  std::mt19937 rng(1234);
  int read = 0, refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<uint8_t> bytes = base;
    if (i % 4 == 0) {
      bytes.resize(rng() % bytes.size());
    } else {
      // Corrupt a few bytes of the first 8 KiB: the tables live there, the weights after.
      for (int k = 0; k < 1 + i % 3; ++k)
        bytes[rng() % std::min<size_t>(bytes.size(), 8192)] = static_cast<uint8_t>(rng());
    }
    exercise(bytes, &read, &refused);
  }
  EXPECT_GT(refused, 50);
  EXPECT_GT(read, 20);
}

}  // namespace
