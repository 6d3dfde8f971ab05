#include "tools/tigris/arrays.h"

#include <cctype>
#include <cstring>

#include "compiler/report/format.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/zip.h"

namespace tigris::cli {
namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";

struct Descr {
  const char* text;  // without the byte-order character
  int dtype;
};
// NumPy type strings and the ONNX dtype codes they carry.
constexpr Descr kDescrs[] = {
    {"f4", 1}, {"u1", 2}, {"i1", 3},  {"u2", 4},  {"i2", 5},  {"i4", 6},
    {"i8", 7}, {"b1", 9}, {"f2", 10}, {"f8", 11}, {"u4", 12}, {"u8", 13},
};

// The value that follows 'key': in a NumPy header dict, or npos.
size_t value_pos(const std::string& header, const std::string& key) {
  for (const char quote : {'\'', '"'}) {
    const std::string quoted = std::string(1, quote) + key + quote;
    size_t p = header.find(quoted);
    if (p == std::string::npos) continue;
    p = header.find(':', p + quoted.size());
    if (p == std::string::npos) return p;
    ++p;
    while (p < header.size() && std::isspace(static_cast<unsigned char>(header[p]))) ++p;
    return p;
  }
  return std::string::npos;
}

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

Header parse_header(const std::string& h, const std::string& where) {
  const auto bad = [&](const std::string& what) { return Failure(where + ": bad .npy header (" + what + ")"); };
  Header out;
  size_t p = value_pos(h, "descr");
  if (p == std::string::npos || p >= h.size() || (h[p] != '\'' && h[p] != '"')) {
    throw bad(p != std::string::npos && p < h.size() && h[p] == '[' ? "structured dtypes are not supported"
                                                                    : "no descr");
  }
  const size_t close = h.find(h[p], p + 1);
  if (close == std::string::npos) throw bad("descr");
  out.descr = h.substr(p + 1, close - p - 1);

  p = value_pos(h, "fortran_order");
  if (p == std::string::npos) throw bad("no fortran_order");
  if (h.compare(p, 4, "True") == 0) {
    out.fortran = true;
  } else if (h.compare(p, 5, "False") != 0) {
    throw bad("fortran_order");
  }

  p = value_pos(h, "shape");
  if (p == std::string::npos || p >= h.size() || h[p] != '(') throw bad("no shape");
  const size_t end = h.find(')', p);
  if (end == std::string::npos) throw bad("shape");
  for (size_t i = p + 1; i < end;) {
    while (i < end && (std::isspace(static_cast<unsigned char>(h[i])) || h[i] == ',')) ++i;
    if (i >= end) break;
    size_t j = i;
    while (j < end && std::isdigit(static_cast<unsigned char>(h[j]))) ++j;
    if (j == i || j - i > 15) throw bad("shape");
    out.shape.push_back(std::stoll(h.substr(i, j - i)));
    i = j;
  }
  return out;
}

std::string shape_tuple(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

int dtype_of_descr(const std::string& descr, const std::string& where) {
  if (descr.size() != 3) throw Failure(where + ": unsupported array dtype '" + descr + "'");
  const char order = descr[0];
  const std::string kind = descr.substr(1);
  for (const Descr& d : kDescrs) {
    if (kind != d.text) continue;
    const bool single_byte = kind[1] == '1';
    if (order == '<' || order == '|' || (order == '>' && single_byte) || (order == '=')) return d.dtype;
    throw Failure(where + ": big-endian arrays are not supported ('" + descr + "')");
  }
  throw Failure(where + ": unsupported array dtype '" + descr + "'");
}

std::string descr_of_dtype(int dtype) {
  for (const Descr& d : kDescrs) {
    if (d.dtype == dtype) return std::string(d.text[1] == '1' ? "|" : "<") + d.text;
  }
  throw Failure("cannot write an array of dtype " + report::dtype_name(dtype) + " as .npy");
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

Array read_npy(const std::vector<uint8_t>& bytes, const std::string& where) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kNpyMagic, 6) != 0) {
    throw Failure(where + ": not a .npy file");
  }
  const uint8_t major = bytes[6];
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw Failure(where + ": truncated .npy header");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  } else {
    throw Failure(where + ": unsupported .npy version " + std::to_string(major));
  }
  if (header_len > bytes.size() - header_start) throw Failure(where + ": truncated .npy header");
  const Header h =
      parse_header(std::string(reinterpret_cast<const char*>(bytes.data() + header_start), header_len), where);

  Array a;
  a.dtype = dtype_of_descr(h.descr, where);
  a.shape = h.shape;
  const uint64_t elem = report::dtype_size(a.dtype);
  uint64_t count = 1;
  for (const int64_t d : a.shape) {
    if (d > 0 && count > (1ull << 40) / static_cast<uint64_t>(d)) throw Failure(where + ": array too large");
    count *= static_cast<uint64_t>(d);
  }
  const size_t data_start = header_start + header_len;
  const uint64_t have = bytes.size() - data_start;
  if (have < count * elem) {
    throw Failure(where + ": truncated: the header states " + std::to_string(count * elem) +
                  " bytes of data, the file has " + std::to_string(have));
  }
  if (have > count * elem) {
    throw Failure(where + ": " + std::to_string(have - count * elem) + " bytes after the array data");
  }
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  if (h.fortran && a.shape.size() > 1) {
    // Column-major data is the C-order array of the reversed shape, transposed.
    std::vector<int64_t> reversed(a.shape.rbegin(), a.shape.rend());
    std::vector<int> perm;
    for (size_t i = 0; i < a.shape.size(); ++i) perm.push_back(static_cast<int>(a.shape.size() - 1 - i));
    a.data = permute_axes(a.data, reversed, perm, static_cast<uint32_t>(elem));
  }
  return a;
}

std::vector<uint8_t> write_npy(const Array& array) {
  std::string header = "{'descr': '" + descr_of_dtype(array.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_tuple(array.shape) + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary; the header ends in '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out(kNpyMagic, kNpyMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xFF));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

std::vector<NamedArray> read_npz(const std::vector<uint8_t>& bytes, const std::string& where) {
  std::vector<NamedArray> out;
  for (ZipMember& m : read_zip(bytes, where)) {
    std::string name = m.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    out.push_back({name, read_npy(m.data, where + ":" + m.name)});
  }
  return out;
}

std::vector<uint8_t> write_npz(const std::vector<NamedArray>& arrays) {
  std::vector<ZipMember> members;
  for (const NamedArray& a : arrays) members.push_back({a.name + ".npy", write_npy(a.array)});
  return write_zip(members);
}

std::vector<int64_t> permute_shape(const std::vector<int64_t>& shape, const std::vector<int>& perm) {
  std::vector<int64_t> out;
  for (const int axis : perm) out.push_back(shape[static_cast<size_t>(axis)]);
  return out;
}

std::vector<int> inverse_permutation(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

std::vector<uint8_t> permute_axes(const std::vector<uint8_t>& data, const std::vector<int64_t>& shape,
                                  const std::vector<int>& perm, uint32_t elem_size) {
  const size_t rank = shape.size();
  std::vector<uint8_t> out(data.size());
  if (data.empty()) return out;
  // Source strides (in elements), then the strides of each destination axis in the source.
  std::vector<int64_t> src_stride(rank, 1);
  for (size_t i = rank; i-- > 1;) src_stride[i - 1] = src_stride[i] * shape[i];
  const std::vector<int64_t> dst_shape = permute_shape(shape, perm);
  std::vector<int64_t> step(rank), index(rank, 0);
  for (size_t i = 0; i < rank; ++i) step[i] = src_stride[static_cast<size_t>(perm[i])];
  const int64_t count = element_count(shape);
  int64_t src = 0;
  for (int64_t dst = 0; dst < count; ++dst) {
    std::memcpy(out.data() + dst * elem_size, data.data() + src * elem_size, elem_size);
    // Advance the destination index like an odometer, tracking the source offset.
    for (size_t axis = rank; axis-- > 0;) {
      if (++index[axis] < dst_shape[axis]) {
        src += step[axis];
        break;
      }
      src -= step[axis] * (dst_shape[axis] - 1);
      index[axis] = 0;
    }
  }
  return out;
}

}  // namespace tigris::cli
