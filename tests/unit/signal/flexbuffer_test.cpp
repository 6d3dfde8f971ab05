// The FlexBuffer reader of TFLite custom options: blobs built by a tiny writer below (the
// layout of flatbuffers' flexbuffers.h), the signal library's own blobs as TFLite Micro's
// audio preprocessor carries them, and hostile bytes (every truncation and every single-byte
// corruption of a valid blob is either read or refused with FlexError, never read past).
#include <gtest/gtest.h>

#include "export/tflite/flexbuffer.h"

namespace {

using tigris::tflite::FlexError;
using tigris::tflite::FlexMap;
using Blob = std::vector<uint8_t>;

// Test-only writer: a root map whose values are written in one byte width `w`.
struct Entry {
  std::string key;
  uint8_t type;                // FlexBuffer type of the value
  std::vector<uint64_t> items;  // the scalar (one item), or a typed vector's items
  std::string text;             // a string's bytes
};

void put(Blob& b, uint64_t v, int w) {
  for (int k = 0; k < w; ++k) b.push_back(static_cast<uint8_t>(v >> (8 * k)));
}

Blob map_blob(std::vector<Entry> entries, int w) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  const uint8_t lw = w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
  Blob b;
  std::vector<uint64_t> key_at, data_at(entries.size(), 0);
  for (const Entry& e : entries) {
    key_at.push_back(b.size());
    b.insert(b.end(), e.key.begin(), e.key.end());
    b.push_back(0);
  }
  for (size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (e.type == 5) {  // string: length, bytes, NUL
      put(b, e.text.size(), w);
      data_at[k] = b.size();
      b.insert(b.end(), e.text.begin(), e.text.end());
      b.push_back(0);
    } else if (e.type == 11) {  // typed int vector
      put(b, e.items.size(), w);
      data_at[k] = b.size();
      for (uint64_t v : e.items) put(b, v, w);
    }
  }
  put(b, entries.size(), w);
  const uint64_t keys = b.size();
  for (size_t k = 0; k < entries.size(); ++k) put(b, b.size() - key_at[k], w);
  put(b, b.size() - keys, w);
  put(b, static_cast<uint64_t>(w), w);
  put(b, entries.size(), w);
  const uint64_t values = b.size();
  for (size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (e.type == 5 || e.type == 11)
      put(b, b.size() - data_at[k], w);
    else
      put(b, e.items.at(0), w);
  }
  for (const Entry& e : entries) b.push_back(static_cast<uint8_t>(e.type << 2 | ((e.type == 5 || e.type == 11) ? lw : 0)));
  put(b, b.size() - values, w);
  b.push_back(static_cast<uint8_t>(9 << 2 | lw));
  b.push_back(static_cast<uint8_t>(w));
  return b;
}

Blob hex(const std::string& h) {
  Blob b;
  for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return b;
}

uint64_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(FlexBuffer, ReadsEveryKindAtEveryWidth) {
  for (int w : {1, 2, 4, 8}) {
    std::vector<Entry> e = {{"b_int", 1, {static_cast<uint64_t>(-5)}, ""},
                            {"a_uint", 2, {200}, ""},
                            {"c_bool", 26, {1}, ""},
                            {"d_text", 5, {}, "hann"},
                            {"e_vec", 11, {1, 2, static_cast<uint64_t>(-3)}, ""}};
    if (w >= 4) e.push_back({"f_float", 3, {w == 4 ? bits_of(0.25f) : 0x3FD0000000000000ull}, ""});
    FlexMap m(map_blob(e, w));
    EXPECT_EQ(m.integer("b_int"), -5) << w;
    EXPECT_EQ(m.integer("a_uint"), 200) << w;
    EXPECT_TRUE(m.boolean("c_bool")) << w;
    EXPECT_EQ(m.string("d_text"), "hann") << w;
    EXPECT_EQ(m.values().at("e_vec").numbers, (std::vector<double>{1, 2, -3})) << w;
    if (w >= 4) {
      EXPECT_EQ(m.number("f_float"), 0.25) << w;
    }
    EXPECT_FALSE(m.has("missing"));
  }
}

TEST(FlexBuffer, KindAndRangeErrorsNameTheOption) {
  FlexMap m(map_blob({{"shift", 1, {40}, ""}, {"name", 5, {}, "x"}}, 1));
  EXPECT_EQ(m.integer("shift", 0, 40), 40);
  try {
    m.integer("shift", 0, 31);
    FAIL();
  } catch (const FlexError& e) {
    EXPECT_NE(std::string(e.what()).find("'shift' is 40"), std::string::npos) << e.what();
  }
  EXPECT_THROW(m.integer("name"), FlexError);
  EXPECT_THROW(m.integer("absent"), FlexError);
  EXPECT_THROW(m.string("shift"), FlexError);
}

// The signal library's options as TFLite Micro's audio_preprocessor models carry them.
TEST(FlexBuffer, ReadsTheSignalLibrarysBlobs) {
  FlexMap window(hex("73686966740001070101010c04022401"));
  EXPECT_EQ(window.integer("shift"), 12);
  FlexMap rfft(hex("54006666745f6c656e67746800020e0d020001000200070000020505062501"));
  EXPECT_EQ(rfft.integer("T"), 7);  // TensorType INT16
  EXPECT_EQ(rfft.integer("fft_length"), 512);
  FlexMap energy(hex("656e645f696e6465780073746172745f696e6465780002170e00030001000200f10005000505062501"));
  EXPECT_EQ(energy.integer("start_index"), 5);
  EXPECT_EQ(energy.integer("end_index"), 241);
}

TEST(FlexBuffer, RefusesBlobsThatAreNotAMap) {
  EXPECT_THROW(FlexMap(Blob{}), FlexError);
  EXPECT_THROW(FlexMap(Blob{1, 2}), FlexError);
  EXPECT_THROW(FlexMap(Blob{0x05, 0x04, 0x01}), FlexError);  // an int root
  EXPECT_THROW(FlexMap(Blob{0x00, 0x24, 0x03}), FlexError);  // byte width 3
  EXPECT_THROW(FlexMap(Blob{0x00, 0x24, 0x08}), FlexError);  // root before the blob
  EXPECT_THROW(FlexMap(Blob{0x09, 0x24, 0x01}), FlexError);  // offset past the start
}

// Every prefix, every single-byte change and every overlapping splice of a valid blob is
// read or refused, never read past its end.
TEST(FlexBuffer, HostileBytesAreRefusedNotRead) {
  const Blob good = map_blob({{"a", 1, {7}, ""}, {"bb", 5, {}, "xyz"}, {"c", 11, {1, 2, 3}, ""}}, 2);
  ASSERT_EQ(FlexMap(good).integer("a"), 7);
  auto try_read = [](const Blob& b) {
    try {
      FlexMap m(b);
      for (const auto& [k, v] : m.values()) (void)v.numbers.size();
    } catch (const FlexError&) {}
  };
  for (size_t n = 0; n < good.size(); ++n) {
    Blob cut(good.begin(), good.begin() + static_cast<long>(n));
    try_read(cut);
    if (n > 0) {
      EXPECT_THROW(FlexMap{cut}, FlexError) << "prefix " << n;  // a prefix loses its root
    }
  }
  for (size_t i = 0; i < good.size(); ++i)
    for (int v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      Blob bad = good;
      bad[i] = static_cast<uint8_t>(v);
      try_read(bad);
    }
  // Offsets pointing at the map itself (overlapping keys and values).
  for (size_t i = 0; i + 1 < good.size(); ++i) {
    Blob bad = good;
    bad[i] = 0, bad[i + 1] = 0;
    try_read(bad);
  }
}

}  // namespace
