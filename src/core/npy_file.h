// A NumPy .npy file (format versions 1.0 to 3.0, numpy.lib.format): its element type, its shape
// and its elements, read strictly. The input draw `file:` loads one (docs/user-ops.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace caliber {

struct NpyArray {
  char kind = 'f';          // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
  std::size_t itemsize = 4; // bytes per element
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> data;  // little-endian elements, C order
  std::size_t elements() const { return itemsize ? data.size() / itemsize : 0; }
  // Element i as a double (floats: f2, f4, f8; integers up to 8 bytes; bool).
  double get(std::size_t i) const;
};

// Throws InputError naming the file and what is wrong: not an .npy file, a big-endian or Fortran-order
// array, an element type other than float16/32/64, (u)int8..64 and bool, or fewer bytes than its shape.
NpyArray read_npy(const std::string& path);

}  // namespace caliber
