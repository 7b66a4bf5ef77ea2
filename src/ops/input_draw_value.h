// The value of element i of an input draw (caliber/input_draw.h), written once for the host's draw
// (ops/host_draw.h) and the cuda backend's (Backend::fill_draw): the same bits on both. Element
// i's random words come from its uniform-draw state (ops/uniform_draw.h): word 0 is the uniform
// draw's own, so a plain uniform draw keeps the bits it always had. The device rounds each
// operation explicitly: a fused multiply-add would give other bits than the host.
#pragma once

#include <cstdint>

#include "caliber/dtype.h"
#include "caliber/input_draw.h"
#include "core/host_device.h"
#include "ops/element_codec.h"
#include "ops/uniform_draw.h"

namespace caliber::ops {

CALIBER_HOST_DEVICE inline double draw_mul(double x, double y) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(x, y);
#else
  return x * y;
#endif
}
CALIBER_HOST_DEVICE inline double draw_add(double x, double y) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(x, y);
#else
  return x + y;
#endif
}

// floor(x * n / 2^64): an index in [0, n), each equally likely for a uniform x.
CALIBER_HOST_DEVICE inline std::uint64_t draw_index(std::uint64_t x, std::uint64_t n) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(x, n);
#else
  const std::uint64_t x_lo = x & 0xffffffffull, x_hi = x >> 32, n_lo = n & 0xffffffffull, n_hi = n >> 32;
  const std::uint64_t lo_lo = x_lo * n_lo, lo_hi = x_lo * n_hi, hi_lo = x_hi * n_lo;
  const std::uint64_t mid = (lo_lo >> 32) + (lo_hi & 0xffffffffull) + (hi_lo & 0xffffffffull);
  return x_hi * n_hi + (lo_hi >> 32) + (hi_lo >> 32) + (mid >> 32);
#endif
}

// Random word k of the element whose uniform-draw state is `state`.
CALIBER_HOST_DEVICE inline std::uint64_t draw_word(std::uint64_t state, int k) {
  return splitmix64(state + static_cast<std::uint64_t>(k) * 0xd1b54a32d192ed03ull);
}
// A uniform double in [0, 1) from word k.
CALIBER_HOST_DEVICE inline double draw_unit(std::uint64_t state, int k) {
  return static_cast<double>(draw_word(state, k) >> 11) * 1.1102230246251565e-16;  // 2^-53
}

inline constexpr int kSpecialValues = 5;
// Special value `which` (< kSpecialValues) of the element type (caliber/input_draw.h).
CALIBER_HOST_DEVICE inline double special_value(ElementType e, std::uint64_t which) {
  const double inf = bits_double(0x7ff0000000000000ull);
  switch (e) {
    case ElementType::int8: return which == 0 ? -128.0 : which == 1 ? 127.0 : 0.0;
    case ElementType::uint8: return which == 1 ? 255.0 : 0.0;
    case ElementType::int32: return which == 0 ? -2147483648.0 : which == 1 ? 2147483647.0 : 0.0;
    case ElementType::int64: return which == 0 ? -9223372036854775808.0 : which == 1 ? 9223372036854775807.0 : 0.0;
    case ElementType::boolean: return which == 1 ? 1.0 : 0.0;
    default: break;
  }
  double tiny = 0;  // the smallest subnormal
  switch (e) {
    case ElementType::fp64: tiny = bits_double(1); break;
    case ElementType::fp32: tiny = pow2(-149); break;
    case ElementType::bf16: tiny = pow2(-133); break;
    case ElementType::fp16: tiny = pow2(-24); break;
    case ElementType::fp8_e4m3: tiny = pow2(-9); break;
    default: tiny = pow2(-16); break;  // fp8_e5m2
  }
  const double big = e == ElementType::fp8_e4m3 ? 448.0 : inf;
  switch (which) {
    case 0: return big;
    case 1: return -big;
    case 2: return bits_double(0x7ff8000000000000ull);
    case 3: return tiny;
    default: return bits_double(0x8000000000000000ull);  // -0
  }
}

// The base draw's range the tie levels span.
CALIBER_HOST_DEVICE inline void tie_range(const DrawParams& p, double& lo, double& hi) {
  if (p.kind == DrawKind::normal) {
    lo = draw_add(p.a, -draw_mul(2.0, p.b));
    hi = draw_add(p.a, draw_mul(2.0, p.b));
  } else {
    lo = p.kind == DrawKind::uniform ? static_cast<double>(static_cast<float>(p.a)) : p.a;
    hi = p.kind == DrawKind::uniform ? static_cast<double>(static_cast<float>(p.b)) : p.b;
  }
}

// Element i of the draw, before it is rounded to the element type `e` (store_element). Not for
// DrawKind::permutation or DrawKind::file (the host draws those, ops/host_draw.h).
CALIBER_HOST_DEVICE inline double draw_element(const DrawParams& p, ElementType e, std::uint64_t i) {
  const std::uint64_t chunk = i / kUniformChunk;
  const std::uint64_t state = uniform_chunk_state(p.seed, chunk) + (i - chunk * kUniformChunk + 1) * kGoldenGamma;
  if (p.mask_fraction > 0 && draw_unit(state, 1) < p.mask_fraction) return p.mask_value;
  if (p.special_fraction > 0 && draw_unit(state, 2) < p.special_fraction) {
    return special_value(e, draw_index(draw_word(state, 3), kSpecialValues));
  }
  if (p.tie_fraction > 0 && draw_unit(state, 4) < p.tie_fraction) {
    double lo = 0, hi = 0;
    tie_range(p, lo, hi);
    if (p.tie_levels < 2) return hi;
    const auto level = static_cast<double>(draw_index(draw_word(state, 5), p.tie_levels));
    return draw_add(lo, draw_mul(draw_add(hi, -lo), level / static_cast<double>(p.tie_levels - 1)));
  }
  switch (p.kind) {
    case DrawKind::normal: {
      double z = 0;
      for (int k = 6; k < 18; ++k) z = draw_add(z, static_cast<double>(draw_word(state, k) >> 40) * 5.9604644775390625e-8);
      return draw_add(draw_mul(p.b, draw_add(z, -6.0)), p.a);
    }
    case DrawKind::integers: {
      const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(p.b) - static_cast<std::int64_t>(p.a)) + 1;
      return p.a + static_cast<double>(draw_index(draw_word(state, 0), span));
    }
    default: {
      const auto lo = static_cast<float>(p.a);
      return uniform_value(state, uniform_scale(lo, static_cast<float>(p.b)), lo);
    }
  }
}

}  // namespace caliber::ops
