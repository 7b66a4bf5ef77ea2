// The cache policies: what cold and rotate need, where a cold flush goes, which copy a call uses.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "measure/cache_policy.h"
#include "support/fixed_contract.h"
#include "support/recording_backend.h"

namespace caliber::measurement {
namespace {

using testing_support::RecordingBackend;

Contract with_cache(CachePolicy cache, std::int64_t graph_calls = 1) {
  Contract c = testing_support::fixed_cuda_contract(Schedule::graph, cache, 4, 1);
  c.graph_calls = graph_calls;
  return c;
}

// A backend whose flush covers only the last-level cache once.
class ShortFlush final : public RecordingBackend {
 public:
  std::uint64_t flush_bytes() const override { return device().llc_bytes; }
};

TEST(CachePolicy, ColdNeedsAFlushOfTwiceTheLastLevelCache) {
  RecordingBackend b;  // flushes 2 MiB over a 1 MiB cache
  const CacheSetup cold = set_up_cache_policy(b, with_cache(CachePolicy::cold), {});
  EXPECT_EQ(cold.flush_bytes, 2u << 20);
  EXPECT_EQ(cold.rotation_copies, 0u);
  ShortFlush s;
  try {
    set_up_cache_policy(s, with_cache(CachePolicy::cold), {});
    FAIL() << "a flush of 1x the cache was accepted";
  } catch (const ContractError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cache cold needs a flush of >= 2x the last-level cache (2097152 bytes); the backend flushes only "
              "1048576 bytes");
  }
  // warm needs nothing, whatever the flush.
  const CacheSetup warm = set_up_cache_policy(s, with_cache(CachePolicy::warm), {});
  EXPECT_EQ(warm.flush_bytes, 0u);
}

TEST(CachePolicy, RotateNeedsCopiesCoveringTwiceTheLastLevelCache) {
  RecordingBackend b;
  MeasureOptions o;
  o.rotation_copies = 4;
  o.working_set_bytes = 512 << 10;  // 4 x 512 KiB = 2 MiB
  EXPECT_EQ(set_up_cache_policy(b, with_cache(CachePolicy::rotate), o).rotation_copies, 4u);
  o.rotation_copies = 3;
  EXPECT_THROW(set_up_cache_policy(b, with_cache(CachePolicy::rotate), o), ContractError);
  o.rotation_copies = 1;
  o.working_set_bytes = 64 << 20;
  EXPECT_THROW(set_up_cache_policy(b, with_cache(CachePolicy::rotate), o), ContractError);
}

TEST(CachePolicy, WhereTheColdFlushGoesUnderTheGraphSchedule) {
  EXPECT_EQ(graph_flush(with_cache(CachePolicy::warm, 4)), GraphFlush::none);
  EXPECT_EQ(graph_flush(with_cache(CachePolicy::rotate, 4)), GraphFlush::none);
  EXPECT_EQ(graph_flush(with_cache(CachePolicy::cold, 1)), GraphFlush::before_each_replay);
  EXPECT_EQ(graph_flush(with_cache(CachePolicy::cold, 4)), GraphFlush::captured_before_each_call);
  EXPECT_TRUE(flushes_before_each_call(with_cache(CachePolicy::cold)));
  EXPECT_FALSE(flushes_before_each_call(with_cache(CachePolicy::rotate)));
}

TEST(CachePolicy, CallsCycleThroughTheInputCopiesAndAVerifiedOneStartsAtCopyZero) {
  InputRotation r(3);
  std::vector<std::size_t> seen;
  for (int i = 0; i < 4; ++i) seen.push_back(r.next());
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 0}));
  r.rewind();
  EXPECT_EQ(r.next(), 0u);
  InputRotation none;
  EXPECT_EQ(none.next(), 0u);
  EXPECT_EQ(none.next(), 0u);
  EXPECT_EQ(none.graphs_needed(4), 1u);
}

TEST(CachePolicy, GraphsCoverEveryCopyOnce) {
  const InputRotation r(10);
  EXPECT_EQ(r.graphs_needed(4), 3u);  // ceil(10 / 4)
  EXPECT_EQ(r.of_captured_call(1, 4, 2), 6u);
  EXPECT_EQ(r.of_captured_call(2, 4, 3), 1u);  // call 11 wraps to copy 1
}

TEST(CachePolicy, RotationCopiesNeeded) {
  EXPECT_EQ(rotation_copies_needed(1 << 30, 60 << 20), 2u);
  EXPECT_EQ(rotation_copies_needed(2048, 60ull << 20), 61440u);
  EXPECT_EQ(rotation_copies_needed(3, 4), 3u);  // ceil(8 / 3)
  EXPECT_EQ(rotation_copies_needed(0, 4), 2u);
}

}  // namespace
}  // namespace caliber::measurement
