// An op of your own end to end on the host backend (docs/user-ops.md): the example op
// add_rmsnorm (examples/user_op) from `caliber ledger manual` through `caliber run` to `caliber
// report`, its honest providers ok with the description's bytes and flops, and providers that
// skip an output, get one output wrong, touch an input or compute once caught by the integrity
// checks of every output; an op updated in place (sgd_momentum) checked from its original values.
#include <algorithm>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"
#include "ops/op_catalog.h"
#include "support/cli_run.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

const std::string kDescription = std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/add_rmsnorm.op.yaml";
const std::string kExample = std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_add_rmsnorm.so";
const std::string kTestPlugin = CALIBER_TEST_USER_OP_PLUGIN;

std::string entry(const std::string& name, const std::string& library, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + library + ":" + symbol + "\", provider: plugin}\n";
}

std::string matrix(const std::string& providers) {
  return "schema_version: 1\nkernel: add_rmsnorm\nop_type: add_rmsnorm\nop_description: " + kDescription +
         "\ndtype: [fp32, bf16]\nreference_provider: twopass\nlayout_contract: row_major\nproviders:\n" + providers;
}

std::vector<std::string> run_args(const std::string& dir) {
  return {"run", "--op", "add_rmsnorm", "--backend", "host", "--shape-ledger", dir + "/ledger.jsonl",
          "--baseline-matrix", dir + "/matrix.yaml", "--out", dir + "/out", "--min-time-ms", "0",
          "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"};
}

TEST(UserOpCli, TheExampleOpRunsThroughLedgerRunAndReportAndEveryOutputIsChecked) {
  const std::string dir = fresh_dir("user_op_run");
  const auto ledger = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--op-description", kDescription,
                                   "--ledger", dir + "/ledger.jsonl", "--shape", "m=8,n=64,eps=1e-6", "--shape",
                                   "m=33,n=100,eps=1e-5", "--dtype", "fp32,bf16"});
  ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
  write_text(dir + "/matrix.yaml",
             matrix(entry("twopass", kExample, "add_rmsnorm_twopass") + entry("fused", kExample, "add_rmsnorm_fused") +
                    entry("skips_h", kTestPlugin, "add_rmsnorm_test_skips_h") +
                    entry("wrong_h", kTestPlugin, "add_rmsnorm_test_wrong_h") +
                    entry("touch_input", kTestPlugin, "add_rmsnorm_test_touch_input") +
                    entry("lazy", kTestPlugin, "add_rmsnorm_test_lazy")));
  const auto r = run_caliber(run_args(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u * 6u) << r.err;
  std::map<std::string, int> ok_rows;
  for (const BenchmarkResultRow& row : rows) {
    EXPECT_EQ(row.op_type, "add_rmsnorm");
    const std::int64_t m = row.args.at("m").get<std::int64_t>(), n = row.args.at("n").get<std::int64_t>();
    const std::uint64_t element = row.dtype == "fp32" ? 4 : 2;
    EXPECT_EQ(row.bytes, static_cast<std::uint64_t>(4 * m * n + n) * element) << row.provider;  // the formula
    EXPECT_EQ(row.flops, static_cast<std::uint64_t>(5 * m * n));
    if (row.provider == "twopass" || row.provider == "fused") {
      EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.provider << ": " << row.status_reason.value_or("");
      ok_rows[row.provider] += row.benchmark_status == BenchmarkStatus::ok;
      const IntegrityCheck* before = row.integrity.find(integrity_check::output_before_timing);
      ASSERT_NE(before, nullptr);
      EXPECT_NE(before->detail.find("libcaliber_add_rmsnorm.so:add_rmsnorm_reference in fp64"), std::string::npos)
          << before->detail;
      // Outputs this small are compared whole, both of them.
      EXPECT_NE(before->detail.find("on y: " + std::to_string(m) + " of " + std::to_string(m) + " rows, h: " +
                                    std::to_string(m) + " of " + std::to_string(m) + " rows"),
                std::string::npos)
          << before->detail;
      ASSERT_TRUE(row.correctness.has_value());
      EXPECT_EQ(row.correctness->checked_rows, m);  // every row of the output it reports
      continue;
    }
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::incorrect) << row.provider << ": "
                                                                 << row.status_reason.value_or("");
    const std::string reason = row.status_reason.value_or("");
    if (row.provider == "skips_h") EXPECT_NE(reason.find("output h: "), std::string::npos) << reason;
    if (row.provider == "wrong_h") EXPECT_NE(reason.find("output h: relative Frobenius error"), std::string::npos) << reason;
    if (row.provider == "touch_input") EXPECT_NE(reason.find("inputs_unchanged"), std::string::npos) << reason;
    if (row.provider == "lazy") EXPECT_NE(reason.find("integrity"), std::string::npos) << reason;
  }
  EXPECT_EQ(ok_rows["twopass"], 4);
  EXPECT_EQ(ok_rows["fused"], 4);

  // The report reads the run like any other; the ledger's op is known from its description.
  const auto report = run_caliber({"report", "--shape-ledger", dir + "/ledger.jsonl", "--results",
                                   dir + "/out/benchmark_results.jsonl", "--out", dir + "/report", "--candidate",
                                   "fused", "--op-description", kDescription});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string summary = slurp(dir + "/report/benchmark_summary.md");
  EXPECT_NE(summary.find("add_rmsnorm"), std::string::npos);
  EXPECT_NE(summary.find("twopass"), std::string::npos);

  // Every file validates against the schemas: with the matrix naming the description, or with it given.
  std::filesystem::copy_file(dir + "/ledger.jsonl", dir + "/shape_ledger.jsonl");
  std::filesystem::copy_file(dir + "/matrix.yaml", dir + "/baseline_matrix.yaml");
  const auto valid = run_caliber({"validate", dir + "/shape_ledger.jsonl", dir + "/baseline_matrix.yaml",
                                  dir + "/out/benchmark_results.jsonl", dir + "/out/benchmark_results.csv"});
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  const auto alone = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("unknown op 'add_rmsnorm'"), std::string::npos) << alone.err;
  const auto given = run_caliber({"validate", dir + "/shape_ledger.jsonl", "--op-description", kDescription});
  EXPECT_EQ(given.exit_code, 0) << given.err;
  // Given first, --op-description takes one file: the files after it are the files to check.
  const auto first = run_caliber({"validate", "--op-description", kDescription, dir + "/shape_ledger.jsonl",
                                  dir + "/out/benchmark_results.csv"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("valid benchmark_results_csv"), std::string::npos) << first.out;

  // The regression gate pairs two runs of the op like any other (same identity, same contracts).
  const auto again = run_caliber({"run", "--op", "add_rmsnorm", "--backend", "host", "--shape-ledger",
                                  dir + "/ledger.jsonl", "--baseline-matrix", dir + "/matrix.yaml", "--out",
                                  dir + "/again", "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples", "6",
                                  "--warmup", "1", "--providers", "twopass,fused"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto gate = run_caliber({"compare", dir + "/out", dir + "/again", "--format", "json"});
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  EXPECT_NE(gate.out.find("add_rmsnorm"), std::string::npos) << gate.out;
}

TEST(UserOpCli, AnOpUpdatedInPlaceIsCheckedFromItsOriginalValues) {
  const std::string dir = fresh_dir("user_op_in_place");
  const std::string description = std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/sgd_momentum.op.yaml";
  const std::string example = std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_sgd_momentum.so";
  const std::string cheats = CALIBER_TEST_INPLACE_OP_PLUGIN;
  const auto ledger = run_caliber({"ledger", "manual", "--op", "sgd_momentum", "--op-description", description,
                                   "--ledger", dir + "/ledger.jsonl", "--shape", "n=1000,lr=0.01,beta=0.9", "--shape",
                                   "n=4097,lr=0.1,beta=0.5", "--dtype", "fp32,bf16"});
  ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
  write_text(dir + "/matrix.yaml",
             "schema_version: 1\nkernel: sgd_momentum\nop_type: sgd_momentum\nop_description: " + description +
                 "\ndtype: [fp32, bf16]\nreference_provider: loop\nlayout_contract: row_major\nproviders:\n" +
                 entry("loop", example, "sgd_momentum_loop") + entry("lazy", cheats, "sgd_momentum_test_lazy") +
                 entry("skips_momentum", cheats, "sgd_momentum_test_skips_momentum") +
                 entry("touches_grad", cheats, "sgd_momentum_test_touches_grad"));
  const auto r = run_caliber({"run", "--op", "sgd_momentum", "--backend", "host", "--shape-ledger",
                              dir + "/ledger.jsonl", "--baseline-matrix", dir + "/matrix.yaml", "--out", dir + "/out",
                              "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u * 4u) << r.err;
  int loop_ok = 0;
  for (const BenchmarkResultRow& row : rows) {
    const std::string what = row.provider + " " + row.dtype + " " + row.args.dump() + ": " +
                             row.status_reason.value_or("");
    const std::int64_t n = row.args.at("n").get<std::int64_t>();
    // param and momentum read and written, grad read: every input and output element once.
    EXPECT_EQ(row.bytes, static_cast<std::uint64_t>(5 * n) * (row.dtype == "fp32" ? 4u : 2u)) << what;
    if (row.provider == "loop") {
      EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << what;
      loop_ok += row.benchmark_status == BenchmarkStatus::ok;
      // The timed calls ran on what the previous call left; the verified ones from the original
      // values, judged against the reference's update of the same values.
      const IntegrityCheck* after = row.integrity.find(integrity_check::output_after_timing);
      ASSERT_NE(after, nullptr) << what;
      EXPECT_EQ(after->outcome, CheckOutcome::passed) << after->detail;
      const IntegrityCheck* inputs = row.integrity.find(integrity_check::inputs_unchanged);
      ASSERT_NE(inputs, nullptr) << what;
      EXPECT_EQ(inputs->outcome, CheckOutcome::passed) << inputs->detail;
      EXPECT_NE(inputs->detail.find("1 input ("), std::string::npos) << inputs->detail;  // grad alone is watched
      continue;
    }
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::incorrect) << what;
    const std::string reason = row.status_reason.value_or("");
    if (row.provider == "lazy") {
      EXPECT_NE(reason.find("correct before timing, wrong after the timed calls"), std::string::npos) << reason;
    }
    if (row.provider == "skips_momentum") EXPECT_NE(reason.find("output momentum_out: "), std::string::npos) << reason;
    if (row.provider == "touches_grad") EXPECT_NE(reason.find("inputs_unchanged"), std::string::npos) << reason;
  }
  EXPECT_EQ(loop_ok, 4);
}

TEST(UserOpCli, ADescribedOpNeedsItsDescriptionAndPluginsOfAbiV2) {
  const std::string dir = fresh_dir("user_op_refusals");
  // Without its description, the op is unknown: exit 2 and where to look.
  const auto unknown = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--ledger", dir + "/ledger.jsonl",
                                    "--shape", "m=8,n=64,eps=1e-6"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("docs/user-ops.md"), std::string::npos) << unknown.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/ledger.jsonl"));
  // An argument the description does not declare.
  const auto bad_arg = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--op-description", kDescription,
                                    "--ledger", dir + "/ledger.jsonl", "--shape", "m=8,n=64,k=3,eps=1e-6"});
  EXPECT_EQ(bad_arg.exit_code, 2);
  EXPECT_NE(bad_arg.err.find("unknown argument of op add_rmsnorm"), std::string::npos) << bad_arg.err;
  const auto ledger = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--op-description", kDescription,
                                   "--ledger", dir + "/ledger.jsonl", "--shape", "m=8,n=64,eps=1e-6", "--dtype",
                                   "fp32"});
  ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
  // A v1 entry named for a described op: the preflight refuses it before anything runs (exit 3).
  write_text(dir + "/matrix.yaml",
             matrix(entry("twopass", kExample, "add_rmsnorm_twopass") + entry("old", kTestPlugin, "add_rmsnorm_test_v1")));
  const auto v1 = run_caliber(run_args(dir));
  EXPECT_EQ(v1.exit_code, 3) << v1.err;
  EXPECT_NE(v1.err.find("was built for plugin ABI version 1; this caliber speaks version 2"), std::string::npos)
      << v1.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
  // A matrix whose op_type is not the op its description describes.
  write_text(dir + "/matrix.yaml", "schema_version: 1\nkernel: k\nop_type: fused_add\nop_description: " + kDescription +
                                       "\ndtype: fp32\nreference_provider: twopass\nlayout_contract: row_major\n"
                                       "providers:\n" + entry("twopass", kExample, "add_rmsnorm_twopass"));
  const auto mismatch = run_caliber(run_args(dir));
  EXPECT_EQ(mismatch.exit_code, 2) << mismatch.err;
  EXPECT_NE(mismatch.err.find("matrix.yaml:3: field 'op_type'"), std::string::npos) << mismatch.err;
}

// caliber ledger synthetic for an op of your own: the example description's probes, per dtype.
TEST(UserOpCli, SyntheticRowsAreTheProbesOfTheDescription) {
  const std::string dir = fresh_dir("user_op_synthetic");
  const auto r = run_caliber({"ledger", "synthetic", "--op", "add_rmsnorm", "--op-description", kDescription,
                              "--ledger", dir + "/ledger.jsonl", "--dtype", "fp32,bf16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ops::register_op_description(kDescription);  // this process reads rows of the op too
  const std::vector<ShapeRow> rows = read_shape_ledger(dir + "/ledger.jsonl");
  ASSERT_EQ(rows.size(), 2u * 7u);  // examples/user_op/add_rmsnorm.op.yaml names 7 probes
  for (const ShapeRow& row : rows) {
    EXPECT_EQ(row.op_type, "add_rmsnorm");
    EXPECT_EQ(row.stage, Stage::synthetic);
    EXPECT_FALSE(row.notes.empty());
  }
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const ShapeRow& row) {
    return row.args.dump() == R"({"eps":1e-06,"m":1,"n":4097})" && row.notes.find("not a multiple of 8") != std::string::npos;
  }));
}

// `caliber ledger models` derives an op of your own's rows from its description's models entries
// (add_rmsnorm: tokens x hidden_size in every RMSNorm model; Falcon's LayerNorm gets a notice).
TEST(UserOpCli, ModelRowsComeFromTheDescriptionsModelsEntries) {
  const std::string dir = fresh_dir("user_op_models");
  const auto r = run_caliber({"ledger", "models", "--op", "add_rmsnorm", "--op-description", kDescription, "--ledger",
                              dir + "/ledger.jsonl", "--model-shapes",
                              std::string(CALIBER_SOURCE_DIR) + "/data/model_shapes.json", "--models",
                              "llama-3-8b,falcon-7b", "--prefill-tokens", "512", "--decode-tokens", "32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("falcon-7b prefill tp=1: no add_rmsnorm shapes: no models entry of"), std::string::npos) << r.err;
  ops::register_op_description(kDescription);
  const std::vector<ShapeRow> rows = read_shape_ledger(dir + "/ledger.jsonl");
  ASSERT_EQ(rows.size(), 2u);  // llama-3-8b, prefill 512 and decode 32, bf16
  EXPECT_EQ(rows[0].args.dump(), R"({"eps":1e-05,"m":512,"n":4096})");
  EXPECT_EQ(rows[0].stage, Stage::prefill);
  EXPECT_EQ(rows[0].source.kind, SourceKind::model_config);
  EXPECT_NE(rows[0].notes.find("residual add"), std::string::npos) << rows[0].notes;
  EXPECT_EQ(rows[1].args.dump(), R"({"eps":1e-05,"m":32,"n":4096})");
  EXPECT_EQ(rows[1].stage, Stage::decode);
}

// A description whose reference is a cuda plugin, run on the host backend: the preflight refuses
// it before anything runs (exit 3), naming the description's field.
TEST(UserOpCli, ACudaReferenceIsRefusedByTheHostBackendsPreflight) {
  const std::string dir = fresh_dir("user_op_cuda_reference");
  std::string text = slurp(kDescription);
  const std::string from = "\"@plugins/libcaliber_add_rmsnorm.so:add_rmsnorm_reference\"";
  text.replace(text.find(from), from.size(), "\"" + kTestPlugin + ":add_rmsnorm_test_cuda_backend\"");
  const std::string description = dir + "/add_rmsnorm.op.yaml";
  write_text(description, text);
  const auto ledger = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--op-description", description,
                                   "--ledger", dir + "/ledger.jsonl", "--shape", "m=8,n=64,eps=1e-6", "--dtype", "fp32"});
  ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
  std::string m = matrix(entry("twopass", kExample, "add_rmsnorm_twopass"));
  m.replace(m.find(kDescription), kDescription.size(), description);
  write_text(dir + "/matrix.yaml", m);
  const auto r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("add_rmsnorm.op.yaml: field 'reference.entrypoint': "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is a cuda reference and this run's backend is host"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
}

}  // namespace
}  // namespace caliber
