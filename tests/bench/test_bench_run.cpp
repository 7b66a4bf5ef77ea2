#include "bench/bench_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/host/host_backend.h"
#include "caliber/errors.h"

namespace caliber::bench {
namespace {

Contract fixed_host_contract(std::int64_t iterations) {
  Contract c = default_contract(BackendKind::host);
  c.warmup = 1;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = iterations;
  return c;
}

TEST(BenchPlan, EveryKernelUnderEveryCacheAndScheduleInThatOrder) {
  BenchPlanRequest request;
  request.base = fixed_host_contract(5);
  request.kernels = {"copy", "tiny"};
  request.caches = {CachePolicy::warm, CachePolicy::cold};
  request.schedules = {Schedule::isolated, Schedule::per_iter};
  request.tracing = {false, true};
  const BenchPlan plan = plan_bench(request);
  EXPECT_TRUE(plan.skipped.empty());
  ASSERT_EQ(plan.combinations.size(), 16u);
  const BenchCombination& second = plan.combinations[1];
  EXPECT_EQ(second.kernel, "copy");
  EXPECT_EQ(second.contract.cache, CachePolicy::warm);
  EXPECT_EQ(second.contract.schedule, Schedule::isolated);
  EXPECT_TRUE(second.cupti_tracing);
  const BenchCombination& third = plan.combinations[2];
  EXPECT_EQ(third.contract.schedule, Schedule::per_iter);
  EXPECT_FALSE(third.cupti_tracing);
  EXPECT_EQ(plan.combinations[4].contract.cache, CachePolicy::cold);
  EXPECT_EQ(plan.combinations[8].kernel, "tiny");
  EXPECT_EQ(plan.combinations[8].contract.warmup, 1);  // the base contract's other fields
}

TEST(BenchPlan, ARefusedCombinationIsSkippedOnceWithItsReasonOrRefused) {
  BenchPlanRequest request;
  request.base = fixed_host_contract(5);
  request.kernels = {"copy", "tiny"};
  request.caches = {CachePolicy::warm};
  request.schedules = {Schedule::graph, Schedule::isolated};
  request.tracing = {false};
  request.skip_refused = true;
  const BenchPlan plan = plan_bench(request);
  ASSERT_EQ(plan.combinations.size(), 2u);
  EXPECT_EQ(plan.combinations[0].contract.schedule, Schedule::isolated);
  ASSERT_EQ(plan.skipped.size(), 1u);  // the same refusal for both kernels, named once
  EXPECT_EQ(plan.skipped[0].rfind("skipped schedule=graph cache=warm: schedule graph needs device graph capture", 0),
            0u)
      << plan.skipped[0];

  request.skip_refused = false;
  try {
    plan_bench(request);
    FAIL() << "a refused combination that was asked for by name is refused";
  } catch (const ContractError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("invalid contract (--schedule graph --cache warm): ", 0), 0u) << e.what();
  }
}

TEST(BenchPlan, EveryCombinationRefusedLeavesNothingToMeasure) {
  BenchPlanRequest request;
  request.base = fixed_host_contract(5);
  request.kernels = {"tiny"};
  request.caches = {CachePolicy::warm};
  request.schedules = {Schedule::graph};
  request.tracing = {false};
  request.skip_refused = true;
  const BenchPlan plan = plan_bench(request);
  EXPECT_TRUE(plan.combinations.empty());
  EXPECT_EQ(plan.skipped.size(), 1u);
}

DeviceInfo small_cpu() {
  DeviceInfo d;
  d.backend = BackendKind::host;
  d.name = "test cpu";
  d.llc_bytes = 1 << 20;
  d.llc_source = "test";
  return d;
}

TEST(BenchRun, MeasuresEachCombinationInOrderAndReportsAfterEach) {
  host::HostBackend backend(steady_clock(), small_cpu());
  std::vector<BenchCombination> combos;
  for (CachePolicy cache : {CachePolicy::warm, CachePolicy::rotate}) {
    Contract c = fixed_host_contract(5);
    c.cache = cache;
    combos.push_back({"tiny", c, false});
  }
  combos.push_back({"copy", fixed_host_contract(3), false});
  BenchRunOptions options;
  options.size_bytes = 4096;
  options.telemetry = false;
  options.extra_launches = 2;
  std::vector<std::string> seen;
  const std::vector<Result> results =
      run_bench_plan(backend, combos, options, [&](const BenchCombination& combo, const std::vector<Result>& so_far) {
        seen.push_back(combo.kernel + " " + std::to_string(so_far.size()) + " " + so_far.back().name);
      });
  EXPECT_EQ(seen, (std::vector<std::string>{"tiny 1 tiny", "tiny 2 tiny", "copy 3 copy"}));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].summary.n, 5);
  EXPECT_EQ(results[0].rotation_copies, 0u);
  // Rotation: enough 2 KiB working sets to cover 2x the 1 MiB cache.
  EXPECT_EQ(results[1].rotation_copies, 1024u);
  EXPECT_EQ(results[2].summary.n, 3);
  EXPECT_EQ(results[2].params.at("size_bytes").integer(), 4096);
  for (const Result& r : results) {
    EXPECT_FALSE(r.integrity.failed()) << r.integrity.first_failure();
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_EQ(r.warnings.back(),
              "gate self-test: 2 extra launch(es) per call (--selftest-extra-launches): deliberately slower");
  }
}

}  // namespace
}  // namespace caliber::bench
