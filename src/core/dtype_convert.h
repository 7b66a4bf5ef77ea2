// Conversions between float and the 16-bit types, bit-exact with the device's
// round-to-nearest-even conversions (__float2bfloat16_rn, __float2half_rn); compiled for the
// device too (the input draws share them, ops/element_codec.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.h"

namespace caliber::ops {

CALIBER_HOST_DEVICE inline std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

CALIBER_HOST_DEVICE inline float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

CALIBER_HOST_DEVICE inline float bf16_to_float(std::uint16_t h) { return bits_float(static_cast<std::uint32_t>(h) << 16); }

CALIBER_HOST_DEVICE inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);  // to nearest, ties to even
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

CALIBER_HOST_DEVICE inline float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    // Subnormal: value = mant * 2^-24.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    mant &= 0x3ffu;
    return bits_float(sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (mant << 13));
  }
  return bits_float(sign | (exp + (127 - 15)) << 23 | (mant << 13));
}

CALIBER_HOST_DEVICE inline std::uint16_t float_to_fp16(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Subnormal or zero in fp16: value / 2^-24 rounded to nearest even.
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);  // < 2^-25: rounds to 0
    const std::uint32_t e = abs >> 23;
    const std::uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - e;  // 14 - (e - 127) + 13 - 1 ... places the point at 2^-24
    const std::uint32_t q = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    const std::uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | r);
  }
  // Normal: rebias the exponent, round the mantissa to 10 bits (ties to even).
  const std::uint32_t rebased = abs - ((127u - 15u) << 23);
  const std::uint32_t rounding = 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rebased + rounding) >> 13));
}

}  // namespace caliber::ops
