#include "ab/config_replay_check.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

ShapeMeasurement row(const std::string& key, const std::string& config_key, const std::string& pinning) {
  ShapeMeasurement m;
  m.key = key;
  m.label = key;
  m.value_us = 10;
  m.config_key = config_key;
  m.config_pinning = pinning;
  return m;
}

CellResults cell(std::vector<ShapeMeasurement> rows) {
  CellResults c;
  c.rows = std::move(rows);
  c.rows_ok = static_cast<int>(c.rows.size());
  return c;
}

TEST(RecordVsRecord, NothingToReplayWhenARecordedNoConfig) {
  const CellResults a1 = cell({row("sha1:aa/caliber", "", ""), row("sha1:bb/caliber", "", "")});
  EXPECT_FALSE(recorded_any_config(a1));
  EXPECT_TRUE(record_vs_record(a1, cell({row("sha1:aa/caliber", "panel=64", "recorded")})).empty());
}

TEST(RecordVsRecord, EveryRecordedConfigMustBeReplayedWithItsKey) {
  const CellResults a1 = cell({row("sha1:aa/tuned", "panel=128", "recorded"), row("sha1:bb/tuned", "panel=64", "recorded"),
                               row("sha1:aa/caliber", "", "")});
  EXPECT_TRUE(recorded_any_config(a1));
  // Replayed, same keys (and a row A.r1 did not measure): nothing to refuse.
  EXPECT_TRUE(record_vs_record(a1, cell({row("sha1:aa/tuned", "panel=128", "replayed"),
                                         row("sha1:bb/tuned", "panel=64", "replayed"), row("sha1:aa/caliber", "", ""),
                                         row("sha1:cc/tuned", "panel=256", "recorded")}))
                  .empty());
  // Chose afresh (the same key by luck is still a choice, not a replay), chose another key,
  // reported none.
  EXPECT_EQ(record_vs_record(a1, cell({row("sha1:aa/tuned", "panel=128", "recorded"),
                                       row("sha1:bb/tuned", "panel=256", "replayed")})),
            (std::vector<std::string>{"sha1:aa/tuned: A.r1 ran 'panel=128', this cell ran 'panel=128' (recorded)",
                                      "sha1:bb/tuned: A.r1 ran 'panel=64', this cell ran 'panel=256' (replayed)"}));
  EXPECT_EQ(record_vs_record(a1, cell({row("sha1:bb/tuned", "", ""),
                                       row("sha1:aa/tuned", "panel=128", "not_in_replay_source")})),
            (std::vector<std::string>{
                "sha1:bb/tuned: A.r1 ran 'panel=64', this cell ran no recorded config",
                "sha1:aa/tuned: A.r1 ran 'panel=128', this cell ran 'panel=128' (not_in_replay_source)"}));
}

}  // namespace
}  // namespace caliber
