// The cheating and buggy cuda providers of tests/plugins/test_cuda_plugins.cu through `caliber run`
// on a real device (ctest label gpu): under the default contracts, cupti, cold caches and graphs of
// 16 calls, with the device's ceilings from `caliber calibrate` in the test and with none (the
// theoretical ones), every one ends incorrect, failed or faster_than_physical, never ok with a
// number it did not earn; the honest control stays ok (docs/integrity.md). With
// CALIBER_CORPUS_MATRIX naming a file, the suite writes there, in markdown, what each contract run
// made of each provider (scripts/device_check.sh sets it).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

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

const std::vector<std::string> kCheaters = {"lazy",          "drift",        "same_pointer", "memo_pointer",
                                            "subset_rows",   "touch_inputs", "side_stream",  "other_thread",
                                            "empty_capture", "persisting",   "sniff_output", "content_memo",
                                            "capture_skip",  "gap_skip",     "memo_seen"};

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

// A large shape (from memory), a cache-resident one, and a tiny one.
const std::vector<std::pair<std::int64_t, std::int64_t>> kShapes = {{8192, 4096}, {1024, 1024}, {64, 256}};

// One contract run of the corpus (a column of the matrix).
struct CorpusRun {
  std::string name;
  std::string contracts;          // in words
  std::vector<std::string> args;  // caliber run's, besides the common ones
  bool calibrated = true;         // the ceilings of caliber calibrate; else none (the theoretical ones)
  // Cheaters that may end ok, only with a number they earned: `earned` within 25% (or 0.5 us) of
  // the honest provider's on the same shape, `not_faster` no more than 5% (or 50 ns) below it.
  std::vector<std::string> earned;
  std::vector<std::string> not_faster;
};

const std::vector<std::string> kCupti = {"--kernel-only-instrument", "cupti", "--kernel-only-schedule", "per_iter",
                                         "--eager-instrument",       "cupti", "--eager-schedule",       "isolated"};
// Cold under graph needs the flush inside the graph between calls, which only cupti excludes (by
// node identity): kernel-only cupti/graph/cold.
const std::vector<std::string> kCold = {"--kernel-only-instrument", "cupti", "--kernel-only-cache", "cold",
                                        "--eager-cache", "cold"};
const std::vector<std::string> kGraph16 = {"--kernel-only-schedule", "graph", "--graph-calls", "16"};

// Why a cheater may end ok:
//  - capture_skip works on the first call of each capture only, so it is honest outside captures
//    (cupti per_iter, eager timings) and where a graph holds one call (the automatic graph_calls
//    gives 1 on the large shape); with 16 calls per graph the audit graph's calls 2..16 leave poison.
//  - gap_skip skips only calls that come within 15 us of its previous return: whether the draws
//    and poisons between calls take longer depends on the host and the contract.
//  - content_memo computes whenever its sample of x changed, i.e. on every call: each call of a
//    graph replay has its own input set, drawn before the replay. It probes and copies on top of
//    the work: ok, but never faster.
//  - side_stream and empty_capture under cupti: a side stream is attributed by identity, and no
//    graph is captured, so an escape from the capture is no escape.
const std::vector<CorpusRun> kRuns = {
    {"default", "kernel-only event/graph, eager event/per_iter", {}, true, {"capture_skip", "gap_skip"},
     {"content_memo"}},
    {"cupti", "kernel-only cupti/per_iter, eager cupti/isolated", kCupti, true,
     {"side_stream", "empty_capture", "capture_skip", "gap_skip"}, {"content_memo"}},
    {"cold", "kernel-only cupti/graph/cold, eager event/per_iter/cold", kCold, true, {"capture_skip", "gap_skip"},
     {"content_memo"}},
    {"graph16", "kernel-only event/graph with 16 calls per graph, eager event/per_iter", kGraph16, true, {"gap_skip"},
     {"content_memo"}},
    {"default_uncalibrated", "the defaults, no calibrated ceilings", {}, false, {"capture_skip", "gap_skip"},
     {"content_memo"}},
    {"graph16_uncalibrated", "16 calls per graph, no calibrated ceilings", kGraph16, false, {"gap_skip"},
     {"content_memo"}},
};

const CorpusRun& corpus_run(const std::string& name) {
  return *std::find_if(kRuns.begin(), kRuns.end(), [&](const CorpusRun& r) { return r.name == name; });
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

class IntegrityCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing_support::has_cuda_device()) return;
    dir_ = fresh_dir("integrity_corpus");
    std::vector<ShapeRow> shapes;
    for (const auto& [m, n] : kShapes) shapes.push_back(rms(m, n));
    write_shape_ledger(dir_ + "/shape_ledger.jsonl", shapes);
    write_text(dir_ + "/baseline_matrix.yaml", matrix());
    const auto cal = run_caliber({"calibrate", "--backend", "cuda", "--out", dir_ + "/ceilings.json", "--max-time-ms",
                                  "300", "--copy-size", "1GiB", "--matmul-size", "4096"});
    calibrated_ = cal.exit_code == 0;
    calibrate_err_ = cal.err;
  }

  static void TearDownTestSuite() {
    const char* file = std::getenv("CALIBER_CORPUS_MATRIX");
    if (file && *file && !results_.empty()) write_matrix(file);
  }

  void SetUp() override {
    if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  }

  static std::vector<std::string> run_args(const CorpusRun& run) {
    std::vector<std::string> args = {"run", "--op", "rmsnorm", "--backend", "cuda", "--shape-ledger",
                                     dir_ + "/shape_ledger.jsonl", "--baseline-matrix", dir_ + "/baseline_matrix.yaml",
                                     "--out", dir_ + "/" + run.name, "--max-time-ms", "10", "--allow-shared-device"};
    if (run.calibrated) args.insert(args.end(), {"--ceilings", dir_ + "/ceilings.json"});
    args.insert(args.end(), run.args.begin(), run.args.end());
    return args;
  }

  // caliber run under `run`'s contracts; without calibrated ceilings the default ceilings file is
  // one that does not exist, whatever this machine's user has calibrated.
  std::vector<BenchmarkResultRow> run_corpus(const CorpusRun& run) {
    if (run.calibrated) {
      EXPECT_TRUE(calibrated_) << calibrate_err_;
    }
    const std::string env = run.calibrated ? "" : "CALIBER_CEILINGS='" + dir_ + "/no_ceilings.json' ";
    const auto r = testing_support::run_cli_command(env + testing_support::caliber_exe() + " " +
                                                    testing_support::shell_args(run_args(run)));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir_ + "/" + run.name + "/benchmark_results.jsonl");
    results_[run.name] = rows;
    return rows;
  }

  // Every cheater ends incorrect, failed or faster_than_physical, except those `run` lets end ok
  // with a number they earned; the honest provider ends ok.
  static void expect_every_cheater_refused(const std::vector<BenchmarkResultRow>& rows, const CorpusRun& run) {
    std::map<std::string, double> honest_us;
    for (const BenchmarkResultRow& r : rows) {
      if (r.provider == "honest" && r.median_us) honest_us[r.shape_id] = *r.median_us;
    }
    for (const BenchmarkResultRow& r : rows) {
      const std::string what = run.name + ": " + r.provider + " on " + r.args.dump();
      if (r.provider == "honest") {
        EXPECT_EQ(r.benchmark_status, BenchmarkStatus::ok) << what << ": " << r.status_reason.value_or("");
        continue;
      }
      const bool earned = listed(run.earned, r.provider), not_faster = listed(run.not_faster, r.provider);
      if (r.benchmark_status != BenchmarkStatus::ok) continue;
      ASSERT_TRUE(r.median_us.has_value()) << what;
      EXPECT_TRUE(earned || not_faster) << what << " posted " << *r.median_us
                                        << " us as ok; integrity: " << to_json(r.integrity).dump();
      if (!earned && !not_faster) continue;
      ASSERT_TRUE(honest_us.count(r.shape_id)) << r.shape_id;
      const double h = honest_us.at(r.shape_id), slack = std::max(0.25 * h, 0.5);
      const double floor = not_faster ? h - std::max(0.05 * h, 0.05) : h - slack;
      EXPECT_GT(*r.median_us, floor) << what << " posted " << *r.median_us << " us as ok, honest " << h << " us";
      if (earned) {
        EXPECT_LT(*r.median_us, h + slack) << what << " posted " << *r.median_us << " us as ok, honest " << h << " us";
      }
    }
  }

  void expect_refused(const std::string& name) {
    const CorpusRun& run = corpus_run(name);
    const auto rows = run_corpus(run);
    ASSERT_EQ(rows.size(), kShapes.size() * (1 + kCheaters.size()));
    expect_every_cheater_refused(rows, run);
  }

  static void write_matrix(const std::string& file);

  static std::string dir_;
  static bool calibrated_;
  static std::string calibrate_err_;
  static std::map<std::string, std::vector<BenchmarkResultRow>> results_;  // by contract run
};

std::string IntegrityCorpus::dir_;
bool IntegrityCorpus::calibrated_ = false;
std::string IntegrityCorpus::calibrate_err_;
std::map<std::string, std::vector<BenchmarkResultRow>> IntegrityCorpus::results_;

// A cell of the matrix: the provider's status on each shape (an ok row with its median as a
// multiple of the honest provider's), then whether a cheater was caught on every shape.
std::string matrix_cell(const std::vector<BenchmarkResultRow>& rows, const std::string& provider) {
  std::string statuses;
  bool any_ok = false, all_ok = true;
  for (const auto& [m, n] : kShapes) {
    const std::string shape_id = rms(m, n).shape_id;
    const BenchmarkResultRow *mine = nullptr, *honest = nullptr;
    for (const BenchmarkResultRow& r : rows) {
      if (r.shape_id != shape_id) continue;
      if (r.provider == provider) mine = &r;
      if (r.provider == "honest") honest = &r;
    }
    std::string status = mine ? std::string(to_string(mine->benchmark_status)) : "missing";
    const bool ok = mine && mine->benchmark_status == BenchmarkStatus::ok;
    if (ok && provider != "honest" && mine->median_us && honest && honest->median_us && *honest->median_us > 0) {
      status += fmt::format(" ({:.2f}x)", *mine->median_us / *honest->median_us);
    }
    any_ok = any_ok || ok;
    all_ok = all_ok && ok;
    statuses += (statuses.empty() ? "" : " / ") + status;
  }
  if (provider == "honest") return statuses + ": " + (all_ok ? "ok" : "NOT OK");
  return statuses + ": " + (any_ok ? "NOT CAUGHT" : "CAUGHT");
}

void IntegrityCorpus::write_matrix(const std::string& file) {
  BenchmarkResultRow any;  // where the device and caliber's revision come from
  for (const auto& [name, rows] : results_) {
    if (!rows.empty()) any = rows.front();
  }
  std::ofstream out(file);
  out << "# The integrity corpus on the GPU: caught or not\n\n"
      << "Written by tests/gpu/test_integrity_corpus.cpp (the file CALIBER_CORPUS_MATRIX names): the "
         "cheating and buggy providers of tests/plugins/test_cuda_plugins.cu through `caliber run`, one "
         "column per contract run.\n\n"
      << "- Command: `caliber_gpu_tests --gtest_filter='IntegrityCorpus.*'`; each column is `caliber run --op "
         "rmsnorm --backend cuda --max-time-ms 10 --allow-shared-device` with the arguments below\n"
      << "- date: " << utc_now() << ", caliber: " << any.harness_version << "; GPU: " << any.gpu << ", driver "
      << any.driver_version << "\n"
      << "- Shapes (rmsnorm fp32, in each cell's order):";
  for (std::size_t i = 0; i < kShapes.size(); ++i) {
    out << (i ? ", " : " ") << kShapes[i].first << " x " << kShapes[i].second;
  }
  out << "\n- Columns:\n";
  for (const CorpusRun& run : kRuns) {
    if (!results_.count(run.name)) continue;
    std::string args;
    for (const std::string& a : run.args) args += " " + a;
    out << "  - `" << run.name << "`: " << run.contracts << "; ceilings: "
        << (run.calibrated ? "`caliber calibrate`'s (`--ceilings`)" : "none calibrated (theoretical)")
        << (args.empty() ? "" : "; `" + args.substr(1) + "`") << "\n";
  }
  out << "\nEach cell: the row's benchmark_status on each shape (an ok row of a cheater with its median as a "
         "multiple of the honest provider's), then CAUGHT when no row of the cheater is ok, NOT CAUGHT "
         "otherwise (an ok row is then one the test found earned); for the honest control, ok or NOT OK.\n\n"
      << "| provider |";
  std::string rule = "|---|";
  for (const CorpusRun& run : kRuns) {
    if (!results_.count(run.name)) continue;
    out << " " << run.name << " |";
    rule += "---|";
  }
  out << "\n" << rule << "\n";
  std::vector<std::string> providers = {"honest"};
  providers.insert(providers.end(), kCheaters.begin(), kCheaters.end());
  for (const std::string& p : providers) {
    out << "| " << p << " |";
    for (const CorpusRun& run : kRuns) {
      if (results_.count(run.name)) out << " " << matrix_cell(results_.at(run.name), p) << " |";
    }
    out << "\n";
  }
}

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedUnderTheDefaultContracts) { expect_refused("default"); }

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedUnderCupti) { expect_refused("cupti"); }

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedUnderColdCaches) { expect_refused("cold"); }

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedWithSixteenCallsPerGraph) {
  expect_refused("graph16");
  // Each of the 16 calls of a replay ran on its own input and output set (the engine's note).
  for (const BenchmarkResultRow& r : results_["graph16"]) {
    if (r.provider != "honest") continue;
    ASSERT_TRUE(r.kernel_only.has_value()) << r.shape_id;
    const std::vector<std::string>& notes = r.kernel_only->notes;
    EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
      return n.find("each of the 16 calls of a graph replay ran on its own input and output set") != std::string::npos;
    })) << r.shape_id;
  }
}

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedWithoutCalibratedCeilings) { expect_refused("default_uncalibrated"); }

TEST_F(IntegrityCorpus, EveryCheaterIsRefusedWithSixteenCallsPerGraphWithoutCalibratedCeilings) {
  expect_refused("graph16_uncalibrated");
}

}  // namespace
}  // namespace caliber
