// parallel_for: every index exactly once, exceptions come back, nested-free serial use.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "core/parallel_for.h"

namespace caliber {
namespace {

TEST(ParallelFor, CoversEveryIndexOnce) {
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    parallel_for(n, 3, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << n << " " << i;
  }
}

TEST(ParallelFor, RethrowsAChunksException) {
  EXPECT_THROW(parallel_for(1000, 1,
                            [](std::int64_t b, std::int64_t) {
                              if (b > 0 || parallel_threads() == 1) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<std::int64_t> sum{0};
  parallel_for(100, 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) sum += i;
  });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ParallelFor, ANestedCallRunsSeriallyInsteadOfDeadlocking) {
  std::atomic<std::int64_t> sum{0};
  parallel_for(8, 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      parallel_for(10, 1, [&](std::int64_t b2, std::int64_t e2) {
        for (std::int64_t j = b2; j < e2; ++j) sum += j;
      });
    }
  });
  EXPECT_EQ(sum.load(), 8 * 45);
}

}  // namespace
}  // namespace caliber
