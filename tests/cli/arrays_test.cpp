// .npy/.npz reading is checked against bytes laid out by hand from the NumPy format
// description (magic, version, little-endian header length, Python-literal dict),
// not against our own writer.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>

#include "tools/tigris/arrays.h"
#include "tools/tigris/cli_errors.h"

using namespace tigris::cli;

namespace {

std::vector<uint8_t> npy_bytes(const std::string& dict, const std::vector<uint8_t>& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  out.push_back(static_cast<uint8_t>(header.size()));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  if (major != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> floats(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

}  // namespace

TEST(Npy, ReadsAHandMadeFloat32Array) {
  const auto bytes =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", floats({1, 2, 3, 4, 5, 6}));
  const Array a = read_npy(bytes, "x.npy");
  EXPECT_EQ(a.dtype, 1);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, floats({1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ReadsVersion2HeadersScalarsAndOneDimensionalShapes) {
  const Array s = read_npy(npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (), }", {0xFE}), "s");
  EXPECT_EQ(s.dtype, 3);
  EXPECT_TRUE(s.shape.empty());
  const Array v = read_npy(
      npy_bytes("{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (1,)}", std::vector<uint8_t>(8, 0), 2), "v");
  EXPECT_EQ(v.dtype, 7);
  EXPECT_EQ(v.shape, (std::vector<int64_t>{1}));
}

TEST(Npy, FortranOrderIsReorderedToCOrder) {
  // Column-major [[1,2,3],[4,5,6]] is stored 1,4,2,5,3,6.
  const auto bytes =
      npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", floats({1, 4, 2, 5, 3, 6}), 2);
  const Array a = read_npy(bytes, "f.npy");
  EXPECT_EQ(a.data, floats({1, 2, 3, 4, 5, 6}));
}

TEST(Npy, RejectsTruncatedTrailingBigEndianAndStructured) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_THROW(read_npy(npy_bytes(dict, floats({1, 2, 3})), "t"), Failure);
  EXPECT_THROW(read_npy(npy_bytes(dict, floats({1, 2, 3, 4, 5, 6, 7})), "t"), Failure);
  EXPECT_THROW(read_npy(npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", floats({1})), "b"),
               Failure);
  EXPECT_THROW(
      read_npy(npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", floats({1})), "s"),
      Failure);
  EXPECT_THROW(read_npy({'P', 'K', 3, 4}, "z"), Failure);
  try {
    read_npy(npy_bytes(dict, floats({1, 2, 3})), "in.npy");
  } catch (const Failure& e) {
    EXPECT_EQ(std::string(e.what()).rfind("in.npy: truncated", 0), 0u) << e.what();
  }
}

TEST(Npy, WriterOutputFollowsTheFormat) {
  Array a{1, {1, 2}, floats({0.5f, -1})};
  const auto bytes = write_npy(a);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(std::memcmp(bytes.data(), "\x93NUMPY\x01\x00", 8), 0);
  const size_t header_len = bytes[8] | (bytes[9] << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header(bytes.begin() + 10, bytes.begin() + 10 + static_cast<long>(header_len));
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + 10 + static_cast<long>(header_len), bytes.end()), a.data);
  EXPECT_EQ(read_npy(write_npy(Array{3, {3}, {1, 2, 3}}), "r").shape, (std::vector<int64_t>{3}));
}

namespace {

void put(std::vector<uint8_t>& out, uint32_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A one-member zip archive laid out by hand (APPNOTE 4.3.7, 4.3.12, 4.3.16).
std::vector<uint8_t> one_member_zip(const std::string& name, const std::vector<uint8_t>& raw, bool compress) {
  std::vector<uint8_t> payload = raw;
  if (compress) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    payload.resize(deflateBound(&z, raw.size()));
    z.next_in = const_cast<Bytef*>(raw.data());
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = payload.data();
    z.avail_out = static_cast<uInt>(payload.size());
    deflate(&z, Z_FINISH);
    payload.resize(z.total_out);
    deflateEnd(&z);
  }
  const uint32_t crc = static_cast<uint32_t>(crc32(0, raw.data(), static_cast<uInt>(raw.size())));
  const uint16_t method = compress ? 8 : 0;
  std::vector<uint8_t> z;
  put(z, 0x04034b50, 4);
  put(z, 20, 2);
  put(z, 0, 2);
  put(z, method, 2);
  put(z, 0, 4);
  put(z, crc, 4);
  put(z, static_cast<uint32_t>(payload.size()), 4);
  put(z, static_cast<uint32_t>(raw.size()), 4);
  put(z, static_cast<uint32_t>(name.size()), 2);
  put(z, 0, 2);
  z.insert(z.end(), name.begin(), name.end());
  z.insert(z.end(), payload.begin(), payload.end());
  const uint32_t cd = static_cast<uint32_t>(z.size());
  put(z, 0x02014b50, 4);
  put(z, 20, 2);
  put(z, 20, 2);
  put(z, 0, 2);
  put(z, method, 2);
  put(z, 0, 4);
  put(z, crc, 4);
  put(z, static_cast<uint32_t>(payload.size()), 4);
  put(z, static_cast<uint32_t>(raw.size()), 4);
  put(z, static_cast<uint32_t>(name.size()), 2);
  put(z, 0, 2);
  put(z, 0, 2);
  put(z, 0, 2);
  put(z, 0, 2);
  put(z, 0, 4);
  put(z, 0, 4);
  z.insert(z.end(), name.begin(), name.end());
  const uint32_t cd_size = static_cast<uint32_t>(z.size()) - cd;
  put(z, 0x06054b50, 4);
  put(z, 0, 2);
  put(z, 0, 2);
  put(z, 1, 2);
  put(z, 1, 2);
  put(z, cd_size, 4);
  put(z, cd, 4);
  put(z, 0, 2);
  return z;
}

}  // namespace

TEST(Npz, ReadsStoredAndDeflatedMembers) {
  const auto npy = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", floats({1, 2, 3, 4}));
  for (const bool deflate : {false, true}) {
    const auto arrays = read_npz(one_member_zip("input.1.npy", npy, deflate), "in.npz");
    ASSERT_EQ(arrays.size(), 1u);
    EXPECT_EQ(arrays[0].name, "input.1");
    EXPECT_EQ(arrays[0].array.data, floats({1, 2, 3, 4}));
  }
}

TEST(Npz, CorruptArchivesFailWithTheFileName) {
  const auto npy = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", floats({1, 2, 3, 4}));
  auto zip = one_member_zip("a.npy", npy, true);
  // The central directory entry (46 bytes + the 5-byte name) precedes the 22-byte end record;
  // its CRC field is at offset 16.
  const size_t cd = zip.size() - 22 - 46 - 5;
  auto bad_crc = zip;
  bad_crc[cd + 16] ^= 0xFF;
  EXPECT_THROW(read_npz(bad_crc, "c.npz"), Failure);
  auto truncated = zip;
  truncated.resize(zip.size() / 2);
  EXPECT_THROW(read_npz(truncated, "t.npz"), Failure);
  try {
    read_npz(std::vector<uint8_t>(40, 0), "zero.npz");
    FAIL();
  } catch (const Failure& e) {
    EXPECT_EQ(std::string(e.what()).rfind("zero.npz: ", 0), 0u);
  }
}

// Found by fuzz_npy (tests/fuzz/readers/corpus_npy/crash_inflate_size): a deflated member
// declaring an uncompressed size its data cannot hold is refused before that size is allocated.
TEST(Npz, DeclaredInflatedSizeBeyondDeflatesLimitIsRefused) {
  const auto npy = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", floats({1, 2, 3, 4}));
  auto zip = one_member_zip("a.npy", npy, true);
  // The uncompressed size: offset 22 of the local header and 24 of the central directory entry.
  const size_t cd = zip.size() - 22 - 46 - 5;
  for (const size_t at : {size_t{22}, cd + 24}) {
    for (int i = 0; i < 4; ++i) zip[at + i] = i == 3 ? 0xF0 : 0xFF;
  }
  try {
    read_npz(zip, "big.npz");
    FAIL();
  } catch (const Failure& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("big.npz: member a.npy declares 4043309055 bytes, more than its ", 0), 0u) << what;
  }
}

TEST(Npz, WriterRoundTripsSeveralMembers) {
  std::vector<NamedArray> arrays = {{"out0", Array{1, {2}, floats({1, 2})}}, {"out/1", Array{3, {3}, {7, 8, 9}}}};
  const auto back = read_npz(write_npz(arrays), "w.npz");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "out0");
  EXPECT_EQ(back[1].name, "out/1");
  EXPECT_EQ(back[1].array.data, (std::vector<uint8_t>{7, 8, 9}));
}

TEST(Permute, NchwToNhwcAndBack) {
  // 1x2x2x3 NCHW: value = c*100 + h*10 + w (as bytes mod 256 is fine for the check).
  std::vector<uint8_t> nchw;
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w) nchw.push_back(static_cast<uint8_t>(c * 100 + h * 10 + w));
  const std::vector<int> to_nhwc = {0, 2, 3, 1};
  const auto nhwc = permute_axes(nchw, {1, 2, 2, 3}, to_nhwc, 1);
  EXPECT_EQ(permute_shape({1, 2, 2, 3}, to_nhwc), (std::vector<int64_t>{1, 2, 3, 2}));
  // NHWC element (h=1, w=2, c=1) sits at ((1*3)+2)*2+1 = 11.
  EXPECT_EQ(nhwc[11], 100 + 10 + 2);
  EXPECT_EQ(nhwc[0], 0);
  EXPECT_EQ(nhwc[1], 100);
  EXPECT_EQ(permute_axes(nhwc, {1, 2, 3, 2}, inverse_permutation(to_nhwc), 1), nchw);
}
