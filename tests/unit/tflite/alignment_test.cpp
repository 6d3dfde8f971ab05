// Found by fuzz_tflite (tests/fuzz/readers/corpus_tflite/crash_misaligned_int64): the
// FlatBuffers verifier checks only a vector's 4-byte length alignment, so an int64 vector
// (zero_point) can start at an address that is not 8-aligned. The reader copies vector
// elements byte-wise; here the whole file sits 4 bytes off an 8-aligned address, which puts
// every int64 element off alignment (a direct int64_t read there is what UBSan reported).
#include <gtest/gtest.h>

#include <cstring>
#include <span>

#include "export/tflite/reader.h"
#include "export/tflite/writer.h"
#include "tests/unit/tflite/craft.h"

namespace {

using namespace tigris::tflite;

TEST(TfliteAlignment, Int64VectorsAreReadAtAnyAlignment) {
  Model m = read_model(tigris::test::craft({}), "crafted.tflite");
  ASSERT_FALSE(m.subgraphs[0].tensors.empty());
  Quantization q;
  q.scale = {0.5f};
  q.zero_point = {-10};
  m.subgraphs[0].tensors[0].quantization = q;
  const std::vector<uint8_t> bytes = write_model(m);
  for (size_t shift : {0u, 4u}) {
    std::vector<uint64_t> storage(bytes.size() / 8 + 2);
    uint8_t* at = reinterpret_cast<uint8_t*>(storage.data()) + shift;
    std::memcpy(at, bytes.data(), bytes.size());
    const Model back = read_model(std::span<const uint8_t>(at, bytes.size()), "shifted.tflite");
    ASSERT_TRUE(back.subgraphs[0].tensors[0].quantization.has_value()) << shift;
    EXPECT_EQ(back.subgraphs[0].tensors[0].quantization->zero_point, (std::vector<int64_t>{-10})) << shift;
  }
}

}  // namespace
