// Arrays as run reads and writes them: NumPy .npy (v1-v3), .npz archives of .npy
// members, and raw little-endian .bin data, plus axis permutation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::cli {

// A dense C-order array. dtype is an ONNX TensorProto.DataType code (the plan's codes).
struct Array {
  int dtype = 0;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

int64_t element_count(const std::vector<int64_t>& shape);

// NumPy type strings ('<f4', '|i1'; NumPy's dtype.str) and the dtype codes they carry.
// Failure names `where` for a type the plans have no code for, or a big-endian one.
int dtype_of_descr(const std::string& descr, const std::string& where);
std::string descr_of_dtype(int dtype);

// Parse a .npy file. `where` names the file in error messages (Failure).
// Little-endian or byte-order-free dtypes only; Fortran-ordered arrays are reordered to C order.
Array read_npy(const std::vector<uint8_t>& bytes, const std::string& where);
std::vector<uint8_t> write_npy(const Array& array);

// The members of an .npz archive, keyed by name without the ".npy" suffix, in archive order.
struct NamedArray {
  std::string name;
  Array array;
};
std::vector<NamedArray> read_npz(const std::vector<uint8_t>& bytes, const std::string& where);
std::vector<uint8_t> write_npz(const std::vector<NamedArray>& arrays);

// Reorder axes: result axis i is source axis perm[i]. elem_size bytes per element.
std::vector<uint8_t> permute_axes(const std::vector<uint8_t>& data, const std::vector<int64_t>& shape,
                                  const std::vector<int>& perm, uint32_t elem_size);
std::vector<int64_t> permute_shape(const std::vector<int64_t>& shape, const std::vector<int>& perm);
std::vector<int> inverse_permutation(const std::vector<int>& perm);

}  // namespace tigris::cli
