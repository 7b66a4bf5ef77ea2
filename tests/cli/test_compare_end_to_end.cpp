// The gate end to end on the host backend: a function measured twice with the C++ API passes,
// a deliberately slowed one (3x the work) fails with --fail-on-regression; the same through
// `caliber bench --selftest-extra-launches` (what scripts/device_gate_check.sh does on a GPU).
//
// Robust on a noisy 2-core CI machine: fixed iteration counts; the statistic is min (other
// processes can only add time to a sample, so the minimum of 40 samples barely moves when the
// machine is busy); a 100% relative and 20 us absolute threshold, while the slowed run is
// +200% (3x the work).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "support/run_cli.h"
#include "core/atomic_file.h"
#include "caliber/backend.h"
#include "caliber/measure.h"
#include "caliber/result_json.h"
#include "caliber/run_identity.h"
#include "device/device_probe.h"
#include "identity/collect_run_identity.h"
#include "support/run_cli_args.h"

namespace caliber {
namespace {

using testing_support::CliRun;
using testing_support::run_caliber;

constexpr std::size_t kElements = 100000;

// A dependent chain of multiply-adds: `passes` times the same work, not vectorizable without
// -ffast-math, so 3 passes take 3 times as long.
double sum_of_squares(const std::vector<double>& v, int passes) {
  double s = 0;
  for (int p = 0; p < passes; ++p) {
    for (double x : v) s += x * x;
  }
  return s;
}

Result measure_sum(int passes) {
  auto backend = open_backend(BackendKind::host);
  Contract c = default_contract(BackendKind::host);
  c.cache = CachePolicy::warm;
  c.statistic = parse_statistic("min");
  c.warmup = 5;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = 40;
  MeasureOptions mo;
  mo.name = "sum_of_squares";
  mo.params = {{"elements", kElements}};
  mo.keep_samples = true;
  const std::vector<double> data(kElements, 1.0001);
  std::vector<float> sum(1);
  // Declared buffers: caliber verifies the last timed call's output and watches the input.
  mo.buffers.inputs.push_back({"data", const_cast<double*>(data.data()), data.size() * sizeof(double), std::nullopt});
  mo.buffers.outputs.push_back({"sum", sum.data(), sizeof(float), DType::fp32});
  return measure(*backend, [&](const LaunchContext&) { sum[0] = static_cast<float>(sum_of_squares(data, passes)); }, c,
                 mo);
}

// The results and, beside them, their run identity (what caliber bench --json writes): compare
// checks the identities before it reads a latency.
std::string write_results(const std::string& name, const Result& r) {
  const std::string path = caliber::testing_support::temp_path("caliber_e2e_") + name + ".json";
  write_file_atomically(path, [&](std::ostream& out) { write_results_json(out, {r}); });
  IdentityRequest request;
  request.device = r.device;
  request.contracts = contracts_by_schedule_and_cache({r.contract});
  request.outputs = {std::filesystem::path(path).filename().string()};
  write_run_identity(sidecar_identity_path(path), collect_run_identity(request, system_device_probe()));
  return path;
}

std::string write_thresholds(const std::string& arch, const std::string& rule_name) {
  const std::string path = caliber::testing_support::temp_path("caliber_e2e_thresholds_") + rule_name + ".json";
  std::ofstream(path) << fmt::format(
      R"({{"schema_version": 1, "kind": "caliber.thresholds",
  "architectures": {{"{}": {{"rules": [
    {{"name": "{}", "relative_pct": 100, "absolute_us": 20,
     "calibration": "end-to-end test: min of 40 samples on a shared 2-core machine; the slowed run is +500%"}}]}}}}}})",
      arch, rule_name);
  return path;
}

TEST(CompareEndToEnd, TheSameFunctionPassesAndASlowedOneFails) {
  const Result base = measure_sum(1);
  const Result again = measure_sum(1);
  // Six passes: +500%, far past the 100% threshold even when a neighbour on the 2-core CI machine
  // slows the base run (with three passes a contended base read +98% once).
  const Result slow = measure_sum(6);
  ASSERT_EQ(base.samples_us.size(), 40u);
  const std::string thresholds = write_thresholds(base.device.arch, "sum_of_squares");
  const std::string a = write_results("base", base), b = write_results("again", again),
                    s = write_results("slow", slow);

  const CliRun same = run_caliber({"compare", a, b, "--thresholds", thresholds, "--fail-on-regression"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("[GATE PASS: "), std::string::npos) << same.out;

  const CliRun slower = run_caliber({"compare", a, s, "--thresholds", thresholds, "--fail-on-regression",
                                     "--arch", base.device.arch});
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  EXPECT_NE(slower.out.find("[GATE FAIL: slower +"), std::string::npos) << slower.out;
  EXPECT_NE(slower.out.find("SLOWER"), std::string::npos) << slower.out;
}

TEST(CompareEndToEnd, BenchWithExtraLaunchesIsCaughtByTheGate) {
  const std::string dir = ::testing::TempDir();
  auto bench = [&](const std::string& name, const std::string& extra) {
    const std::string path = dir + "/caliber_e2e_bench_" + name + ".json";
    const CliRun r = run_caliber({"bench", "--backend", "host", "--kernel", "copy", "--size", "4MiB", "--cache",
                                  "warm", "--statistic", "min", "--iters", "40", "--warmup", "5", "--samples",
                                  "--selftest-extra-launches", extra, "--json", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
  };
  const std::string a = bench("a", "0"), b = bench("b", "0"), slow = bench("slow", "2");
  const std::string arch = read_results_json(a).front().device.arch;
  EXPECT_EQ(read_results_json(slow).front().warnings.back(),
            "gate self-test: 2 extra launch(es) per call (--selftest-extra-launches): deliberately slower");
  const std::string thresholds = write_thresholds(arch, "copy");
  const CliRun same = run_caliber({"compare", a, b, "--thresholds", thresholds, "--fail-on-regression"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  const CliRun slower = run_caliber({"compare", a, slow, "--thresholds", thresholds, "--fail-on-regression",
                                     "--format", "junit"});
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  EXPECT_NE(slower.out.find("<failure type=\"regression\""), std::string::npos) << slower.out;
}

}  // namespace
}  // namespace caliber
