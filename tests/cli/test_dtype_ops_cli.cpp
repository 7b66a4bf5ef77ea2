// Ops whose tensors have dtypes of their own, end to end on the host backend (docs/user-ops.md,
// "Tensor dtypes", "Input values", "Checks"): the examples row_topk (int32 indices judged by the
// values they select), row_argmax (an int64 index compared exactly) and quantize_fp8 (an fp8 e4m3
// output within 1 ulp and an fp32 scale) through `caliber ledger manual --axis` and `caliber run`;
// their host provider ok and verified, and providers wrong only under ties or only on special
// values incorrect.
#include <map>

#include <gtest/gtest.h>

#include "results/benchmark_results.h"
#include "io/benchmark_results_json.h"
#include "support/cli_run.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::write_text;

const std::string kExamples = std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/";
const std::string kPlugin = std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_selection_ops.so";

std::string entry(const std::string& name, const std::string& library, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + library + ":" + symbol + "\", provider: plugin}\n";
}

// Runs `op` over the shapes of `axes` in fp32 and bf16 with the example's host provider and `wrong`
// (a test plugin's entry); returns each provider's statuses.
std::map<std::string, std::vector<std::string>> run_op(const std::string& op, const std::vector<std::string>& axes,
                                                       const std::string& wrong) {
  const std::string dir = fresh_dir("dtype_ops_" + op);
  std::vector<std::string> ledger = {"ledger", "manual", "--op", op, "--op-description", kExamples + op + ".op.yaml",
                                     "--ledger", dir + "/ledger.jsonl", "--dtype", "fp32,bf16"};
  for (const std::string& a : axes) ledger.insert(ledger.end(), {"--axis", a});
  const auto l = run_caliber(ledger);
  EXPECT_EQ(l.exit_code, 0) << l.err;
  write_text(dir + "/matrix.yaml", "schema_version: 1\nkernel: " + op + "\nop_type: " + op + "\nop_description: " +
                                       kExamples + op + ".op.yaml\ndtype: [fp32, bf16]\nreference_provider: host\n"
                                       "layout_contract: row_major\nproviders:\n" +
                                       entry("host", kPlugin, "selection_host") +
                                       entry("wrong", CALIBER_TEST_SELECTION_PLUGIN, wrong));
  const auto r = run_caliber({"run", "--op", op, "--backend", "host", "--shape-ledger", dir + "/ledger.jsonl",
                              "--baseline-matrix", dir + "/matrix.yaml", "--out", dir + "/out", "--min-time-ms", "0",
                              "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::vector<std::string>> statuses;
  for (const BenchmarkResultRow& row : read_benchmark_results(dir + "/out/benchmark_results.jsonl")) {
    statuses[row.provider].push_back(std::string(to_string(row.benchmark_status)) + " " +
                                     row.status_reason.value_or(""));
    if (row.provider == "host") {
      // The example declares the flags it was built with (CALIBER_DECLARE_BUILD_FLAGS).
      EXPECT_NE(row.provider_detail.find("(built with: "), std::string::npos) << row.provider_detail;
      EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << op << " " << row.dtype << ": "
                                                           << row.status_reason.value_or("");
      EXPECT_EQ(row.integrity.verdict(), IntegrityVerdict::verified) << row.status_reason.value_or("");
    }
  }
  return statuses;
}

void expect_all_incorrect(const std::vector<std::string>& statuses, const std::string& why) {
  ASSERT_FALSE(statuses.empty());
  for (const std::string& s : statuses) {
    EXPECT_EQ(s.rfind("incorrect", 0), 0u) << s;
    EXPECT_NE(s.find(why), std::string::npos) << s;
  }
}

TEST(DtypeOpsCli, TopKIndicesAreJudgedByTheValuesTheySelectAndRepeatedIndicesUnderTiesAreIncorrect) {
  const auto statuses = run_op("row_topk", {"m=16,64", "n=256", "k=1,8"}, "selection_tie_bugs");
  EXPECT_EQ(statuses.at("host").size(), 2u * 2u * 2u);
  // k = 1 has no second pick to repeat: only k = 8 shows the bug.
  std::size_t incorrect = 0;
  for (const std::string& s : statuses.at("wrong")) incorrect += s.rfind("incorrect", 0) == 0;
  EXPECT_EQ(incorrect, 4u);
}

TEST(DtypeOpsCli, AnArgmaxThatTakesTheLastOfEqualMaximaIsIncorrect) {
  const auto statuses = run_op("row_argmax", {"m=16,64", "n=256"}, "selection_tie_bugs");
  EXPECT_EQ(statuses.at("host").size(), 4u);
  expect_all_incorrect(statuses.at("wrong"), "exact check");
}

TEST(DtypeOpsCli, AQuantizationWhoseAmaxSkipsNaNIsIncorrectOnSpecialValues) {
  const auto statuses = run_op("quantize_fp8", {"m=64", "n=4096"}, "selection_fmax");
  EXPECT_EQ(statuses.at("host").size(), 2u);
  expect_all_incorrect(statuses.at("wrong"), "non-finite outputs");
}

}  // namespace
}  // namespace caliber
