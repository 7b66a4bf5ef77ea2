// What caliber batch prints of durations (campaign/campaign_run.h): the time budget and the ETA.
#include <gtest/gtest.h>

#include <limits>

#include "campaign/campaign_run.h"

namespace caliber::campaign {
namespace {

TEST(CampaignRun, DurationsReadAsSecondsThenMinutes) {
  EXPECT_EQ(duration_text(0), "0s");
  EXPECT_EQ(duration_text(42.4), "42s");
  EXPECT_EQ(duration_text(59.6), "1m00s");
  EXPECT_EQ(duration_text(185), "3m05s");
  EXPECT_EQ(duration_text(7200), "120m00s");
}

TEST(CampaignRun, AnUnknownDurationIsAQuestionMark) {
  EXPECT_EQ(duration_text(-1), "?");
  EXPECT_EQ(duration_text(std::numeric_limits<double>::quiet_NaN()), "?");
}

TEST(CampaignRun, TheClockMovesForward) {
  const double a = now_s();
  EXPECT_GE(now_s(), a);
}

}  // namespace
}  // namespace caliber::campaign
