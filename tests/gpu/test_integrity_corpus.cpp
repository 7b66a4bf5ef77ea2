// The cheating and buggy cuda providers of tests/plugins/test_cuda_plugins.cu through `caliber run`
// on a real device (ctest label gpu): under the default contracts and under cupti, every one ends
// incorrect, failed or faster_than_physical, never ok with a number; the honest control stays ok
// (docs/integrity.md). The device's ceilings come from `caliber calibrate` in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "caliber/result_json.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "support/cuda_device.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::write_text;

const std::vector<std::string> kCheaters = {"lazy",        "drift",        "same_pointer", "memo_pointer",
                                            "subset_rows", "touch_inputs", "side_stream",  "other_thread",
                                            "empty_capture", "persisting", "sniff_output"};

// The plugin as built here, or where the device scripts staged it (CALIBER_PLUGIN_DIR, set by
// scripts/device_check.sh) when the build tree is not on this machine.
std::string plugin_path() {
  const char* dir = std::getenv("CALIBER_PLUGIN_DIR");
  if (dir && *dir) {
    const std::string staged = std::string(dir) + "/libcaliber_test_cuda_plugins.so";
    if (std::filesystem::exists(staged)) return staged;
  }
  return CALIBER_TEST_CUDA_PLUGIN;
}

std::string matrix() {
  const std::string plugin = plugin_path();
  std::string m =
      "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: honest\n"
      "layout_contract: row_major\nproviders:\n";
  for (const std::string& p : std::vector<std::string>{"honest"}) {
    m += "  " + p + ": {enabled: true, entrypoint: \"" + plugin + ":caliber_cuda_test_" + p +
         "\", provider: plugin}\n";
  }
  for (const std::string& p : kCheaters) {
    m += "  " + p + ": {enabled: true, entrypoint: \"" + plugin + ":caliber_cuda_test_" + p +
         "\", provider: plugin}\n";
  }
  return m;
}

ShapeRow rms(std::int64_t m, std::int64_t n) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::synthetic, std::nullopt,
                          {SourceKind::synthetic, "test", ""}, "");
}

class IntegrityCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing_support::has_cuda_device()) return;
    dir_ = fresh_dir("integrity_corpus");
    // A large shape (from memory), a cache-resident one, and a tiny one.
    write_shape_ledger(dir_ + "/shape_ledger.jsonl", {rms(8192, 4096), rms(1024, 1024), rms(64, 256)});
    write_text(dir_ + "/baseline_matrix.yaml", matrix());
    const auto cal = run_caliber({"calibrate", "--backend", "cuda", "--out", dir_ + "/ceilings.json", "--max-time-ms",
                                  "300", "--copy-size", "1GiB", "--matmul-size", "4096"});
    calibrated_ = cal.exit_code == 0;
    calibrate_err_ = cal.err;
  }

  void SetUp() override {
    if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(calibrated_) << calibrate_err_;
  }

  std::vector<BenchmarkResultRow> run(const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--op", "rmsnorm", "--backend", "cuda", "--shape-ledger",
                                     dir_ + "/shape_ledger.jsonl", "--baseline-matrix", dir_ + "/baseline_matrix.yaml",
                                     "--out", dir_ + "/" + name, "--ceilings", dir_ + "/ceilings.json",
                                     "--max-time-ms", "10", "--allow-shared-device"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_caliber(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_benchmark_results(dir_ + "/" + name + "/benchmark_results.jsonl");
  }

  // `earned`: providers that do the whole, correct work in a way this contract's instrument times
  // (under cupti per_iter: a side stream is attributed by identity, and no graph is captured, so an
  // escape from the capture is no escape). They may end ok, but only with a number within 25% (or
  // 0.5 us) of the honest provider's on the same shape: never a number they did not earn.
  static void expect_every_cheater_refused(const std::vector<BenchmarkResultRow>& rows, const std::string& contracts,
                                           const std::vector<std::string>& earned = {}) {
    std::map<std::string, int> ok_rows;
    std::map<std::string, double> honest_us;
    for (const BenchmarkResultRow& r : rows) {
      if (r.provider == "honest" && r.median_us) honest_us[r.shape_id] = *r.median_us;
    }
    for (const BenchmarkResultRow& r : rows) {
      if (std::find(earned.begin(), earned.end(), r.provider) != earned.end()) {
        if (r.benchmark_status != BenchmarkStatus::ok) continue;
        ASSERT_TRUE(honest_us.count(r.shape_id)) << r.shape_id;
        const double h = honest_us.at(r.shape_id);
        EXPECT_LT(std::abs(*r.median_us - h), std::max(0.25 * h, 0.5))
            << contracts << ": " << r.provider << " on " << r.args.dump() << " posted " << *r.median_us
            << " us as ok, honest " << h << " us";
        continue;
      }
      if (r.provider == "honest") {
        EXPECT_EQ(r.benchmark_status, BenchmarkStatus::ok)
            << contracts << " honest " << r.shape_id << ": " << r.status_reason.value_or("");
        continue;
      }
      EXPECT_NE(r.benchmark_status, BenchmarkStatus::ok)
          << contracts << ": " << r.provider << " on " << r.args.dump() << " posted " << r.median_us.value_or(-1)
          << " us as ok; integrity: " << to_json(r.integrity).dump();
      if (r.benchmark_status == BenchmarkStatus::ok) ++ok_rows[r.provider];
    }
    EXPECT_TRUE(ok_rows.empty());
  }

  static std::string dir_;
  static bool calibrated_;
  static std::string calibrate_err_;
};

std::string IntegrityCorpus::dir_;
bool IntegrityCorpus::calibrated_ = false;
std::string IntegrityCorpus::calibrate_err_;

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedUnderTheDefaultContracts) {
  const auto rows = run("default", {});
  ASSERT_EQ(rows.size(), 3u * (1 + kCheaters.size()));
  expect_every_cheater_refused(rows, "kernel-only event/graph, eager event/per_iter");
}

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedUnderCupti) {
  const auto rows =
      run("cupti", {"--kernel-only-instrument", "cupti", "--kernel-only-schedule", "per_iter", "--eager-instrument",
                    "cupti", "--eager-schedule", "isolated"});
  ASSERT_EQ(rows.size(), 3u * (1 + kCheaters.size()));
  expect_every_cheater_refused(rows, "kernel-only cupti/per_iter, eager cupti/isolated", {"side_stream", "empty_capture"});
}

}  // namespace
}  // namespace caliber
