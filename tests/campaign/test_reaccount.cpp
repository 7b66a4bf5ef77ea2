// Re-accounting rules on literal rows: they demote ok rows, and nothing that is not ok ever
// becomes ok (or anything else).
#include <gtest/gtest.h>

#include "campaign/reaccount.h"
#include "support/report_rows.h"

namespace caliber::campaign {
namespace {

using testing_support::ledger_shape;
using testing_support::ok_result;
using testing_support::status_result;

DeviceCeilings tiny_ceilings() {
  DeviceCeilings c;
  c.memory_bandwidth.available = true;
  c.memory_bandwidth.rate_per_s = 1.0;  // 1 byte/s: every real row is faster than this
  c.memory_bandwidth.unit = "bytes/s";
  c.cache_bandwidth = c.memory_bandwidth;
  return c;
}

TEST(Reaccount, AnOkRowWithAGoodReceiptStays) {
  const BenchmarkResultRow row = ok_result(ledger_shape(4, 8), "caliber", 2.0);
  const ReaccountDecision d = reaccount_row(row, "", {});
  EXPECT_FALSE(d.demoted());
  EXPECT_EQ(d.after, BenchmarkStatus::ok);
}

TEST(Reaccount, ABadReceiptDemotesToFailed) {
  const BenchmarkResultRow row = ok_result(ledger_shape(4, 8), "caliber", 2.0);
  const ReaccountDecision d = reaccount_row(row, "receipt was edited", {});
  EXPECT_TRUE(d.demoted());
  EXPECT_EQ(d.after, BenchmarkStatus::failed);
  EXPECT_EQ(d.rule, "receipt");
  const BenchmarkResultRow after = apply_decision(row, d);
  EXPECT_EQ(after.benchmark_status, BenchmarkStatus::failed);
  EXPECT_EQ(*after.status_reason, "re-accounted (receipt): receipt was edited");
}

TEST(Reaccount, TooFastForTheCeilingsDemotesToFasterThanPhysical) {
  BenchmarkResultRow row = ok_result(ledger_shape(4096, 4096), "caliber", 2.0);
  row.bytes = 1 << 20;
  ReaccountRules rules;
  rules.ceilings = {tiny_ceilings()};
  const ReaccountDecision d = reaccount_row(row, "", rules);
  EXPECT_EQ(d.after, BenchmarkStatus::faster_than_physical);
  EXPECT_EQ(d.rule, "physical");
  const BenchmarkResultRow after = apply_decision(row, d);
  EXPECT_TRUE(after.integrity.failed());
}

TEST(Reaccount, RequireVerifiedDemotesPartialRows) {
  BenchmarkResultRow row = ok_result(ledger_shape(4, 8), "caliber", 2.0);
  row.integrity.record(integrity_check::work_on_stream, CheckOutcome::not_run, "no CUPTI");
  ReaccountRules rules;
  rules.require_verified = true;
  EXPECT_EQ(reaccount_row(row, "", rules).after, BenchmarkStatus::failed);
  EXPECT_EQ(reaccount_row(row, "", {}).after, BenchmarkStatus::ok);
}

TEST(Reaccount, NeverPromotes) {
  ReaccountRules generous;  // no rule can fire
  for (BenchmarkStatus s : {BenchmarkStatus::failed, BenchmarkStatus::incorrect, BenchmarkStatus::oom,
                            BenchmarkStatus::faster_than_physical, BenchmarkStatus::unsupported,
                            BenchmarkStatus::skipped, BenchmarkStatus::not_configured}) {
    const BenchmarkResultRow row = status_result(ledger_shape(4, 8), "caliber", s, "because");
    for (const std::string& receipt : {std::string(), std::string("receipt was edited")}) {
      const ReaccountDecision d = reaccount_row(row, receipt, generous);
      EXPECT_EQ(d.after, s) << to_string(s);
      EXPECT_FALSE(d.demoted());
      EXPECT_EQ(apply_decision(row, d).benchmark_status, s);
    }
  }
}

}  // namespace
}  // namespace caliber::campaign
