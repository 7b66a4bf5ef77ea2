#include "core/npy_file.h"

#include <cstring>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/dtype_convert.h"

namespace caliber {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& field, const std::string& why) {
  throw InputError(path, 0, field, why);
}

template <typename T>
T read_le(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // little-endian hosts only (x86-64, aarch64)
  return v;
}

// The header's dict: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
void parse_header(const std::string& path, const std::string& header, NpyArray& a) {
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([<|>=])([fiub])(\d+)')"))) {
    fail(path, "descr", "no element type the reader knows ('<f4', '<i8', '|b1', ...)");
  }
  if (m[1] == ">") fail(path, "descr", "big-endian arrays are not read; save it little-endian");
  a.kind = m[2].str()[0];
  a.itemsize = std::stoul(m[3].str());
  const bool ok = (a.kind == 'f' && (a.itemsize == 2 || a.itemsize == 4 || a.itemsize == 8)) ||
                  ((a.kind == 'i' || a.kind == 'u') && (a.itemsize == 1 || a.itemsize == 2 || a.itemsize == 4 || a.itemsize == 8)) ||
                  (a.kind == 'b' && a.itemsize == 1);
  if (!ok) fail(path, "descr", fmt::format("element type '{}{}' is not float16/32/64, (u)int8..64 or bool", a.kind, a.itemsize));
  if (!std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*False)"))) {
    fail(path, "fortran_order", "Fortran-order arrays are not read; save it in C order");
  }
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) fail(path, "shape", "no shape");
  const std::string dims = m[1].str();
  const std::regex number(R"(\d+)");
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it) {
    a.shape.push_back(std::stoll(it->str()));
  }
}

}  // namespace

double NpyArray::get(std::size_t i) const {
  const unsigned char* p = data.data() + i * itemsize;
  switch (kind) {
    case 'f':
      if (itemsize == 2) return ops::fp16_to_float(read_le<std::uint16_t>(p));
      if (itemsize == 4) return read_le<float>(p);
      return read_le<double>(p);
    case 'i':
      if (itemsize == 1) return read_le<std::int8_t>(p);
      if (itemsize == 2) return read_le<std::int16_t>(p);
      if (itemsize == 4) return read_le<std::int32_t>(p);
      return static_cast<double>(read_le<std::int64_t>(p));
    case 'u':
      if (itemsize == 1) return read_le<std::uint8_t>(p);
      if (itemsize == 2) return read_le<std::uint16_t>(p);
      if (itemsize == 4) return read_le<std::uint32_t>(p);
      return static_cast<double>(read_le<std::uint64_t>(p));
    default: return *p != 0 ? 1.0 : 0.0;
  }
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "", "cannot be opened");
  unsigned char magic[10] = {};
  in.read(reinterpret_cast<char*>(magic), 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "", "not a .npy file (no \\x93NUMPY magic)");
  const int major = magic[6];
  std::size_t header_len = 0;
  if (major == 1) {
    in.read(reinterpret_cast<char*>(magic), 2);
    header_len = static_cast<std::size_t>(magic[0]) | static_cast<std::size_t>(magic[1]) << 8;
  } else if (major == 2 || major == 3) {
    in.read(reinterpret_cast<char*>(magic), 4);
    header_len = read_le<std::uint32_t>(magic);
  } else {
    fail(path, "version", fmt::format(".npy format version {} is not read (1 to 3 are)", major));
  }
  if (!in || header_len > (1u << 20)) fail(path, "header", "truncated or oversized header");
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (!in) fail(path, "header", "truncated header");
  NpyArray a;
  parse_header(path, header, a);
  std::size_t count = 1;
  for (std::int64_t d : a.shape) count *= static_cast<std::size_t>(d);
  a.data.resize(count * a.itemsize);
  in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(a.data.size()));
  if (static_cast<std::size_t>(in.gcount()) != a.data.size()) {
    fail(path, "data", fmt::format("holds {} of the {} bytes its shape needs", in.gcount(), a.data.size()));
  }
  return a;
}

}  // namespace caliber
