// Host implementations of the integrity primitives over memory the host can read: the 64-bit
// checksum and the non-finite count (Backend::checksum / count_nonfinite). The cuda backend
// computes the same checksum on the device (src/backends/cuda/cuda_integrity_kernels.cu), so a
// value is comparable whichever side computed it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "caliber/dtype.h"

namespace caliber::integrity {

// The checksum: for each 8-byte word w_i (the tail zero-padded), mix64(w_i ^ (i * 0x9E3779B97F4A7C15)),
// summed modulo 2^64, then mixed with the byte count. Order-sensitive (each word is keyed by its
// index) and cheap to compute in parallel (a sum).
std::uint64_t checksum_bytes(const void* data, std::size_t bytes);

// One word's term of the checksum; exposed so the device kernel and tests agree with it.
constexpr std::uint64_t checksum_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
constexpr std::uint64_t checksum_term(std::uint64_t word, std::uint64_t index) {
  return checksum_mix(word ^ (index * 0x9e3779b97f4a7c15ull));
}
constexpr std::uint64_t checksum_finish(std::uint64_t sum, std::uint64_t bytes) {
  return checksum_mix(sum ^ checksum_mix(bytes));
}

// Elements that are NaN or infinite (exponent bits all ones) among `elements` of `dtype`.
std::uint64_t count_nonfinite_elements(const void* data, std::size_t elements, DType dtype);

}  // namespace caliber::integrity
