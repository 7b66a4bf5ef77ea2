// caliber run with the cheating and buggy host providers of tests/plugins/test_plugins.c: each one
// is correct on its first call, and each ends incorrect or failed, never ok with a number; one that
// overwrites its inputs cannot spoil the providers measured after it; a lazy candidate cannot be
// promoted by caliber report; --integrity off says that nothing was verified (docs/integrity.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "caliber/result_json.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

const std::string kPlugin = CALIBER_TEST_PLUGIN;

ShapeRow rms(std::int64_t m, std::int64_t n, std::optional<std::string> model = std::nullopt) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}}, model ? Stage::prefill : Stage::mixed,
                          model, {SourceKind::manual, "test", ""}, "");
}

std::string entry(const std::string& name, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + kPlugin + ":" + symbol + "\", provider: plugin}\n";
}

std::string matrix(const std::string& providers) {
  return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: naive\n"
         "layout_contract: row_major\nproviders:\n" +
         providers;
}

std::vector<std::string> run_args(const std::string& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", dir + "/out", "--min-time-ms", "0", "--max-time-ms", "3", "--warmup", "2"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

const std::vector<std::string> kCheaters = {"lazy",        "drift",        "same_pointer", "memo_pointer",
                                            "subset_rows", "touch_inputs", "sniff_output"};

TEST(IntegrityRunCli, EveryCheatingHostProviderEndsIncorrectOrFailed) {
  const std::string dir = fresh_dir("integrity_host_corpus");
  const ShapeRow a = rms(256, 1024), b = rms(64, 512);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {a, b});
  // The input-changing provider comes first: the honest ones after it must still be correct.
  std::string providers = entry("touch_inputs", "caliber_test_touch_inputs");
  for (const std::string& c : kCheaters) {
    if (c != "touch_inputs") providers += entry(c, "caliber_test_" + c);
  }
  providers += entry("correct", "caliber_test_correct") +
               "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"
               "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n";
  write_text(dir + "/baseline_matrix.yaml", matrix(providers));
  const auto r = run_caliber(run_args(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 2u * (kCheaters.size() + 3));
  std::map<std::string, std::string> failures;  // provider -> its first failed check, on shape a
  for (const BenchmarkResultRow& row : rows) {
    const bool honest = row.provider == "correct" || row.provider == "naive" || row.provider == "caliber";
    if (honest) {
      EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.provider << ": " << row.status_reason.value_or("");
      EXPECT_EQ(row.integrity.verdict(), IntegrityVerdict::verified) << row.provider << ": " << to_json(row.integrity).dump();
      // The host backend has no device reference: the check says where its reference came from.
      const IntegrityCheck* judged = row.integrity.find(integrity_check::output_before_timing);
      ASSERT_NE(judged, nullptr);
      EXPECT_EQ(judged->detail.rfind("fp64 reference on the host, on ", 0), 0u) << judged->detail;
      continue;
    }
    EXPECT_TRUE(row.benchmark_status == BenchmarkStatus::incorrect || row.benchmark_status == BenchmarkStatus::failed)
        << row.provider << " on " << row.args.dump() << " ended " << to_string(row.benchmark_status) << " "
        << row.median_us.value_or(-1) << " us";
    EXPECT_EQ(row.integrity.verdict(), IntegrityVerdict::failed) << row.provider;
    EXPECT_TRUE(row.integrity.verification_seed.has_value());
    if (row.shape_id == a.shape_id) failures[row.provider] = row.integrity.first_failure();
  }
  // Each is caught where it cheats.
  EXPECT_EQ(failures["touch_inputs"].rfind("inputs_unchanged:", 0), 0u) << failures["touch_inputs"];
  EXPECT_EQ(failures["subset_rows"].rfind("output_complete:", 0), 0u) << failures["subset_rows"];
  EXPECT_NE(failures["lazy"].find("output_"), std::string::npos) << failures["lazy"];
  EXPECT_NE(failures["drift"].find("correct before timing, wrong after the timed calls"), std::string::npos)
      << failures["drift"];
  EXPECT_NE(failures["memo_pointer"].find("fresh inputs"), std::string::npos) << failures["memo_pointer"];
  EXPECT_NE(failures["sniff_output"].find("output"), std::string::npos) << failures["sniff_output"];
  // The rows say which rows the reference compared, and validate accepts the file.
  const auto v = run_caliber({"validate", dir + "/out/benchmark_results.jsonl", dir + "/out/benchmark_results.csv"});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(IntegrityRunCli, ALazyCandidateIsNeverPromoted) {
  const std::string dir = fresh_dir("integrity_lazy_candidate");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms(512, 1024, "llama-3-8b"), rms(256, 2048, "llama-3-8b")});
  write_text(dir + "/baseline_matrix.yaml",
             matrix(entry("lazy", "caliber_test_lazy") + entry("correct", "caliber_test_correct") +
                    "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"));
  ASSERT_EQ(run_caliber(run_args(dir)).exit_code, 0);
  const auto rep = run_caliber({"report", "--shape-ledger", dir + "/shape_ledger.jsonl", "--results",
                                dir + "/out/benchmark_results.jsonl", "--candidate", "lazy", "--out", dir + "/report"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("decision: blocked (rule D1)"), std::string::npos) << rep.out;
  const std::string summary = slurp(dir + "/report/benchmark_summary.md");
  EXPECT_NE(summary.find("| lazy | incorrect | false | failed |"), std::string::npos) << summary;
}

TEST(IntegrityRunCli, WithTheChecksOffEveryRowSaysItWasNotVerified) {
  const std::string dir = fresh_dir("integrity_off");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms(64, 512)});
  write_text(dir + "/baseline_matrix.yaml", matrix(entry("lazy", "caliber_test_lazy") +
                                                   "  naive: {enabled: true, entrypoint: \"builtin:naive\", "
                                                   "provider: caliber}\n"));
  ASSERT_EQ(run_caliber(run_args(dir, {"--integrity", "off"})).exit_code, 0);
  for (const BenchmarkResultRow& row : read_benchmark_results(dir + "/out/benchmark_results.jsonl")) {
    // Only the correctness check before timing ran: the lazy provider passes it, as before the checks existed.
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.provider;
    EXPECT_EQ(row.integrity.verdict(), IntegrityVerdict::unverified) << row.provider;
  }
  EXPECT_EQ(run_caliber(run_args(dir, {"--integrity", "maybe"})).exit_code, 2);
}

// The input values are nothing a candidate could prepare for: without --seed each run draws its
// own (recorded in every row); --seed pins them, and a pinned run reproduces its rows' seeds.
TEST(IntegrityRunCli, InputSeedsAreDrawnPerRunUnlessPinned) {
  const std::string dir = fresh_dir("integrity_input_seeds");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms(64, 512)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"));
  const auto seed_of = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a = run_args(dir, std::move(extra));
    *(std::find(a.begin(), a.end(), "--out") + 1) = dir + "/" + out;
    const auto r = run_caliber(a);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto rows = read_benchmark_results(dir + "/" + out + "/benchmark_results.jsonl");
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? std::optional<std::uint64_t>() : rows[0].integrity.input_seed;
  };
  const auto drawn1 = seed_of("drawn1", {}), drawn2 = seed_of("drawn2", {});
  ASSERT_TRUE(drawn1 && drawn2);
  EXPECT_NE(*drawn1, *drawn2);
  const auto pinned1 = seed_of("pinned1", {"--seed", "7"}), pinned2 = seed_of("pinned2", {"--seed", "7"});
  ASSERT_TRUE(pinned1 && pinned2);
  EXPECT_EQ(*pinned1, *pinned2);
  EXPECT_NE(*pinned1, *drawn1);
}

}  // namespace
}  // namespace caliber
