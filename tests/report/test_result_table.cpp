#include <gtest/gtest.h>

#include <sstream>

#include "caliber/result_table.h"
#include "support/sample_results.h"

namespace caliber {
namespace {

TEST(ResultTable, GoldenWithContractColumnsNotesAndWarnings) {
  Result a = testing_support::sample_result();
  Result b = a;
  b.name = "tiny";
  b.params = {{"size_bytes", 1024}};
  b.contract.schedule = Schedule::graph;
  b.contract.cache = CachePolicy::warm;
  b.contract.graph_calls = 20;
  b.value_us = 1.0523;
  b.summary.p10_us = 1.01;
  b.summary.p90_us = 1.4;
  b.summary.n = 300;
  b.stable = false;
  b.notes = {"graph: 20 calls per replay; host launch overhead removed (kernel-only)"};
  b.warnings = {"unstable: p90/p10 = 1.386 > 1.2"};
  b.integrity.record(integrity_check::output_after_timing, CheckOutcome::failed, "wrong after timing");
  std::ostringstream out;
  write_results_table(out, {a, b});
  const std::string want =
      "name  size      backend  instrument  schedule  cache  stat    value_us  p10_us  p90_us    n  stable  integrity\n"
      "copy  1.00 GiB  cuda     event       per_iter  cold   median     537.2   536.8   538.0    4  yes     unverified\n"
      "tiny  1.00 KiB  cuda     event       graph/20  warm   median     1.052   1.010   1.400  300  NO      FAILED\n"
      "  note copy [event/per_iter/cold/median]: telemetry: unavailable (not sampled)\n"
      "  ! copy [event/per_iter/cold/median]: few samples (n = 4): quantiles are coarse\n"
      "  note tiny [event/graph/20/warm/median]: graph: 20 calls per replay; host launch overhead removed "
      "(kernel-only)\n"
      "  note tiny [event/graph/20/warm/median]: telemetry: unavailable (not sampled)\n"
      "  ! tiny [event/graph/20/warm/median]: unstable: p90/p10 = 1.386 > 1.2\n";
  EXPECT_EQ(out.str(), want);
}

}  // namespace
}  // namespace caliber
