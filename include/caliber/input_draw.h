// How the values of one input tensor are drawn (docs/user-ops.md, "Input values"): a base draw
// (uniform, normal, integers, a permutation per row, or values loaded from a file) and, element by
// element, a fraction of ties on a few levels, of masked values (-inf, 0, ...) and of special
// values (infinities, NaN, subnormals, signed zeros). Element i's value depends only on (seed, i)
// (the permutation: on (seed, row)), so a backend draws it on its device with the host's bits
// (Backend::fill_draw).
#pragma once

#include <cstdint>

namespace caliber {

enum class DrawKind : std::uint8_t {
  uniform,      // [a, b), a and b rounded to float (the shipped ops' draw)
  normal,       // mean a, standard deviation b: a + b z, z the sum of 12 uniforms minus 6 (Irwin-Hall)
  integers,     // whole numbers in [a, b], each equally likely
  permutation,  // each row (the last extent) a permutation of 0 .. cols - 1
  file,         // values loaded from a .npy file (the host only)
};

struct DrawParams {
  DrawKind kind = DrawKind::uniform;
  std::uint64_t seed = 0;
  double a = -1;
  double b = 1;
  // With probability tie_fraction an element takes one of tie_levels evenly spaced values of the
  // base draw's range ([a, b] for uniform and integers, [a - 2b, a + 2b] for normal; the largest
  // is the range's top, so a row's maximum is tied).
  double tie_fraction = 0;
  std::uint32_t tie_levels = 0;
  double mask_fraction = 0;  // with this probability an element is mask_value
  double mask_value = 0;
  // With this probability an element is one of the element type's special values: +inf, -inf,
  // NaN, its smallest subnormal, -0 (fp8 e4m3, which has no infinity: +-448 for them; integers:
  // their minimum, maximum and 0).
  double special_fraction = 0;
};

}  // namespace caliber
