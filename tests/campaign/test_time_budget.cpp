// The dry run's time budget on a literal plan: devices run in parallel, shards of one device add
// up, the worst case is every attempt at its limit.
#include <gtest/gtest.h>

#include "campaign/campaign_plan.h"

namespace caliber::campaign {
namespace {

CampaignShard shard(int device, std::size_t runnable) {
  CampaignShard s;
  s.device = device;
  s.runnable_cells = runnable;
  s.cells = runnable;
  return s;
}

TEST(TimeBudget, BusiestDeviceDecides) {
  CampaignPlan plan;
  plan.shards = {shard(0, 10), shard(1, 4), shard(0, 6)};
  // max-time 25 ms: per cell 2 x 0.025 + 0.05 = 0.1 s; device 0: 2 x 0.5 + 16 x 0.1 = 2.6 s;
  // device 1: 0.5 + 0.4 = 0.9 s; plus the canary 0.5 + 0.1.
  const TimeBudget b = estimate_time_budget(plan, 25, 300, 3600, 2);
  ASSERT_EQ(b.expected_per_device_s.size(), 2u);
  EXPECT_NEAR(b.expected_per_device_s[0].second, 2.6, 1e-9);
  EXPECT_NEAR(b.expected_per_device_s[1].second, 0.9, 1e-9);
  EXPECT_NEAR(b.expected_s, 2.6 + 0.6, 1e-9);
  // Worst case: device 0, each shard min(3600, 0.5 + cells x 300) x 3 attempts: (3000.5 + 1800.5) x 3,
  // plus the canary min(3600, 300.5).
  EXPECT_NEAR(b.worst_case_s, (3000.5 + 1800.5) * 3 + 300.5, 1e-9);
}

TEST(TimeBudget, TheShardLimitCapsAnAttempt) {
  CampaignPlan plan;
  plan.shards = {shard(0, 100)};
  const TimeBudget b = estimate_time_budget(plan, 10, 300, 60, 0);
  EXPECT_NEAR(b.worst_case_s, 60 + 60, 1e-9);
}

TEST(Devices, ParseAndRefuse) {
  EXPECT_EQ(parse_devices("0,0"), (std::vector<int>{0, 0}));
  EXPECT_EQ(parse_devices("3,1"), (std::vector<int>{3, 1}));
  for (const char* bad : {"", "0,", "-1", "a", "0,,1"}) EXPECT_ANY_THROW(parse_devices(bad)) << bad;
}

}  // namespace
}  // namespace caliber::campaign
