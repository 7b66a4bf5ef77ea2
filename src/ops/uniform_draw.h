// The uniform draw of the ops' inputs, element by element, written once for the host
// (fill_uniform) and the cuda backend's device draw (Backend::fill_uniform): the same bits on
// both. Element i of a draw belongs to chunk i / kUniformChunk, whose SplitMix64 stream is keyed
// by (seed, chunk); its j-th element (j = i mod kUniformChunk) uses the stream's state advanced
// j + 1 times. The value is bits * scale + lo in double, rounded once to float.
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace caliber::ops {

inline constexpr std::uint64_t kUniformChunk = 65536;
inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;

// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014): one
// step and its finalizer.
CALIBER_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += kGoldenGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The state the chunk's stream starts from.
CALIBER_HOST_DEVICE inline std::uint64_t uniform_chunk_state(std::uint64_t seed, std::uint64_t chunk) {
  return splitmix64(seed ^ splitmix64(chunk));
}

// (hi - lo) / 2^24: the draw keeps 24 random bits.
CALIBER_HOST_DEVICE inline double uniform_scale(float lo, float hi) {
  return (static_cast<double>(hi) - static_cast<double>(lo)) / 16777216.0;
}

// The value of the element whose advanced state is `state`. The device rounds each operation
// explicitly: a fused multiply-add would round once and give other bits than the host.
CALIBER_HOST_DEVICE inline float uniform_value(std::uint64_t state, double scale, float lo) {
  const double bits = static_cast<double>(splitmix64(state) >> 40);
#if defined(__CUDA_ARCH__)
  return __double2float_rn(__dadd_rn(__dmul_rn(bits, scale), static_cast<double>(lo)));
#else
  return static_cast<float>(bits * scale + static_cast<double>(lo));
#endif
}

// Element i of the draw (seed, lo, hi), without the rest of its chunk.
CALIBER_HOST_DEVICE inline float uniform_element(std::uint64_t seed, std::uint64_t i, double scale, float lo) {
  const std::uint64_t chunk = i / kUniformChunk;
  const std::uint64_t j = i - chunk * kUniformChunk;
  return uniform_value(uniform_chunk_state(seed, chunk) + (j + 1) * kGoldenGamma, scale, lo);
}

}  // namespace caliber::ops
