#include "core/buffer_digest.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel_for.h"

namespace caliber::integrity {
namespace {

constexpr std::int64_t kWordsPerTask = 1 << 16;  // 512 KiB per parallel task

}  // namespace

std::uint64_t checksum_bytes(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t words = bytes / 8;
  const auto tasks = static_cast<std::int64_t>((words + kWordsPerTask - 1) / kWordsPerTask);
  std::vector<std::uint64_t> partial(static_cast<std::size_t>(tasks), 0);
  parallel_for(tasks, 1, [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::size_t begin = static_cast<std::size_t>(t) * kWordsPerTask;
      const std::size_t end = std::min(words, begin + kWordsPerTask);
      std::uint64_t sum = 0;
      for (std::size_t i = begin; i < end; ++i) {
        std::uint64_t w;
        std::memcpy(&w, p + 8 * i, 8);
        sum += checksum_term(w, i);
      }
      partial[static_cast<std::size_t>(t)] = sum;
    }
  });
  std::uint64_t sum = 0;
  for (std::uint64_t s : partial) sum += s;
  if (bytes % 8 != 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + 8 * words, bytes % 8);
    sum += checksum_term(w, words);
  }
  return checksum_finish(sum, bytes);
}

std::uint64_t count_nonfinite_elements(const void* data, std::size_t elements, DType dtype) {
  std::uint64_t bad = 0;
  switch (dtype) {
    case DType::fp32: {
      const auto* p = static_cast<const unsigned char*>(data);
      for (std::size_t i = 0; i < elements; ++i) {
        std::uint32_t u;
        std::memcpy(&u, p + 4 * i, 4);
        bad += (u & 0x7f800000u) == 0x7f800000u;
      }
      break;
    }
    case DType::bf16:
    case DType::fp16: {
      const std::uint16_t mask = dtype == DType::bf16 ? 0x7f80u : 0x7c00u;
      const auto* p = static_cast<const unsigned char*>(data);
      for (std::size_t i = 0; i < elements; ++i) {
        std::uint16_t u;
        std::memcpy(&u, p + 2 * i, 2);
        bad += (u & mask) == mask;
      }
      break;
    }
  }
  return bad;
}

}  // namespace caliber::integrity
