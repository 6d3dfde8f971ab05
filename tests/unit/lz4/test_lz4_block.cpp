// LZ4 block decoder: round trips against liblz4, hand-made blocks from the format
// description, and robustness on truncated and mutated input (deterministic).
#include <gtest/gtest.h>
#include <lz4.h>
#include <lz4hc.h>

#include <cstring>
#include <random>
#include <vector>

#include "lz4/lz4_block.h"

using namespace tigris_rt;

namespace {

std::vector<uint8_t> compress(const std::vector<uint8_t>& raw, bool hc) {
  std::vector<uint8_t> out((size_t)LZ4_compressBound((int)raw.size()));
  int n = hc ? LZ4_compress_HC((const char*)raw.data(), (char*)out.data(), (int)raw.size(), (int)out.size(), 9)
             : LZ4_compress_default((const char*)raw.data(), (char*)out.data(), (int)raw.size(), (int)out.size());
  out.resize((size_t)n);
  return out;
}

std::vector<uint8_t> sample(size_t n, uint32_t seed) {
  // Compressible: runs, repeats at several distances, and some noise.
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t r = rng() % 8;
    if (i >= 300 && r < 3)
      v[i] = v[i - 300];
    else if (i >= 3 && r < 6)
      v[i] = v[i - 3];
    else
      v[i] = (uint8_t)rng();
  }
  return v;
}

TEST(Lz4Block, RoundTripsLiblz4Blocks) {
  for (size_t n : {1u, 13u, 100u, 4096u, 70000u}) {
    for (bool hc : {false, true}) {
      std::vector<uint8_t> raw = sample(n, (uint32_t)n);
      std::vector<uint8_t> block = compress(raw, hc);
      ASSERT_FALSE(block.empty());
      std::vector<uint8_t> out(n);
      uint32_t len = 0;
      ASSERT_EQ(lz4_decode_block(block.data(), (uint32_t)block.size(), out.data(), (uint32_t)n, &len), LZ4_OK)
          << n << (hc ? " hc" : "");
      EXPECT_EQ(len, n);
      EXPECT_EQ(out, raw);
    }
  }
}

TEST(Lz4Block, LongRunsUseLengthContinuationBytes) {
  std::vector<uint8_t> raw(5600, 0x42);
  for (size_t i = 5000; i < raw.size(); ++i) raw[i] = 0x17;  // matches longer than 15 + 255
  std::vector<uint8_t> block = compress(raw, true);
  std::vector<uint8_t> out(raw.size());
  uint32_t len = 0;
  ASSERT_EQ(lz4_decode_block(block.data(), (uint32_t)block.size(), out.data(), (uint32_t)out.size(), &len), LZ4_OK);
  EXPECT_EQ(out, raw);
}

TEST(Lz4Block, HandMadeSequences) {
  // "abc" literals, then a match of 7 at offset 3 (overlapping), then 5 literal bytes.
  const uint8_t block[] = {0x33, 'a', 'b', 'c', 0x03, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z'};
  uint8_t out[32];
  uint32_t len = 0;
  ASSERT_EQ(lz4_decode_block(block, sizeof(block), out, sizeof(out), &len), LZ4_OK);
  ASSERT_EQ(len, 15u);
  EXPECT_EQ(std::string((char*)out, len), "abcabcabcavwxyz");
  // A single empty literal run is the encoding of empty input.
  const uint8_t empty[] = {0x00};
  ASSERT_EQ(lz4_decode_block(empty, 1, out, 0, &len), LZ4_OK);
  EXPECT_EQ(len, 0u);
  // 15 + 255 + 3 literal bytes: length continuation across two bytes.
  std::vector<uint8_t> lit(276, 'q');
  lit[0] = 0xF0;
  lit[1] = 255;
  lit[2] = 3;
  std::vector<uint8_t> big(273);
  ASSERT_EQ(lz4_decode_block(lit.data(), (uint32_t)lit.size(), big.data(), 273, &len), LZ4_OK);
  EXPECT_EQ(len, 273u);
  EXPECT_EQ(big, std::vector<uint8_t>(273, 'q'));
}

TEST(Lz4Block, RefusesBadBlocks) {
  uint8_t out[64];
  uint32_t len = 0;
  const uint8_t zero_offset[] = {0x10, 'a', 0x00, 0x00, 0x00};
  EXPECT_EQ(lz4_decode_block(zero_offset, sizeof(zero_offset), out, 64, &len), LZ4_ERR_OFFSET);
  const uint8_t far_offset[] = {0x10, 'a', 0x02, 0x00, 0x00};
  EXPECT_EQ(lz4_decode_block(far_offset, sizeof(far_offset), out, 64, &len), LZ4_ERR_OFFSET);
  const uint8_t short_literals[] = {0x50, 'a', 'b'};
  EXPECT_EQ(lz4_decode_block(short_literals, sizeof(short_literals), out, 64, &len), LZ4_ERR_TRUNCATED);
  const uint8_t ends_on_match[] = {0x10, 'a', 0x01, 0x00};
  EXPECT_EQ(lz4_decode_block(ends_on_match, sizeof(ends_on_match), out, 64, &len), LZ4_ERR_TRUNCATED);
  const uint8_t half_offset[] = {0x10, 'a', 0x01};
  EXPECT_EQ(lz4_decode_block(half_offset, sizeof(half_offset), out, 64, &len), LZ4_ERR_TRUNCATED);
  const uint8_t open_length[] = {0xF0, 255, 255};
  EXPECT_EQ(lz4_decode_block(open_length, sizeof(open_length), out, 64, &len), LZ4_ERR_TRUNCATED);
  const uint8_t too_long[] = {0x40, 'a', 'b', 'c', 'd'};
  EXPECT_EQ(lz4_decode_block(too_long, sizeof(too_long), out, 3, &len), LZ4_ERR_OUTPUT);
  const uint8_t match_too_long[] = {0x1F, 'a', 0x01, 0x00, 100, 0x00};
  EXPECT_EQ(lz4_decode_block(match_too_long, sizeof(match_too_long), out, 64, &len), LZ4_ERR_OUTPUT);
  EXPECT_EQ(lz4_decode_block(nullptr, 4, out, 64, &len), LZ4_ERR_ARGS);
  EXPECT_EQ(lz4_decode_block(too_long, 0, out, 64, &len), LZ4_ERR_ARGS);
  EXPECT_EQ(lz4_decode_block(too_long, sizeof(too_long), nullptr, 64, &len), LZ4_ERR_ARGS);
}

// Decoding must stay inside its buffers for any input: decode into an exact-size buffer
// framed by guard bytes, from a source copied into a heap block of exactly its length (so
// an over-read would be caught by ASan builds), and check the guards.
TEST(Lz4Block, TruncatedAndMutatedInputStayInBounds) {
  const std::vector<uint8_t> raw = sample(3000, 7);
  const std::vector<uint8_t> block = compress(raw, false);
  std::mt19937 rng(12345);
  const size_t cap = raw.size();
  std::vector<uint8_t> frame(cap + 64);
  size_t failures = 0, runs = 0;
  auto run = [&](const std::vector<uint8_t>& src) {
    std::unique_ptr<uint8_t[]> exact(new uint8_t[src.size() ? src.size() : 1]);
    if (!src.empty()) memcpy(exact.get(), src.data(), src.size());
    memset(frame.data(), 0xEE, frame.size());
    uint32_t len = 0;
    Lz4Status st = lz4_decode_block(exact.get(), (uint32_t)src.size(), frame.data() + 32, (uint32_t)cap, &len);
    for (size_t i = 0; i < 32; ++i) {
      ASSERT_EQ(frame[i], 0xEE);
      ASSERT_EQ(frame[32 + cap + i], 0xEE);
    }
    if (st == LZ4_OK) {
      EXPECT_LE(len, cap);
    } else {
      ++failures;
    }
    ++runs;
  };
  for (size_t cut = 0; cut < block.size(); ++cut) run(std::vector<uint8_t>(block.begin(), block.begin() + cut));
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> m = block;
    int flips = 1 + (int)(rng() % 4);
    for (int f = 0; f < flips; ++f) m[rng() % m.size()] = (uint8_t)rng();
    run(m);
  }
  for (int i = 0; i < 500; ++i) {
    std::vector<uint8_t> m(1 + rng() % 64);
    for (auto& b : m) b = (uint8_t)rng();
    run(m);
  }
  EXPECT_EQ(runs, block.size() + 3500);
  EXPECT_GT(failures, block.size() / 2);  // most damaged blocks are refused
}

}  // namespace
