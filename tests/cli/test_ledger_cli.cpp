// caliber ledger: importers through the CLI, idempotent, kind-preserving, strict about options.
#include <gtest/gtest.h>

#include <map>

#include "ledger/shape_ledger.h"
#include "support/cli_run.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;

TEST(LedgerCli, ImportersAreIdempotentAndNeverClobberEachOther) {
  const std::string dir = fresh_dir("ledger_cli");
  const std::string l = dir + "/shape_ledger.jsonl";
  const std::string models = std::string(CALIBER_SOURCE_DIR) + "/data/model_shapes.json";
  ASSERT_EQ(run_caliber({"ledger", "manual", "--op", "gemm", "--ledger", l, "--shape", "m=8,n=16,k=32", "--dtype",
                         "bf16,fp32", "--notes", "mine"})
                .exit_code,
            0);
  ASSERT_EQ(run_caliber({"ledger", "diagnostic", "--op", "gemm", "--ledger", l, "--shape", "m=4096,n=4096,k=4096"})
                .exit_code,
            0);
  ASSERT_EQ(run_caliber({"ledger", "synthetic", "--op", "gemm", "--ledger", l}).exit_code, 0);
  const auto m = run_caliber({"ledger", "models", "--op", "gemm", "--ledger", l, "--model-shapes", models, "--models",
                              "llama-3-8b,deepseek-v3", "--tp", "1,8"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const std::string first = slurp(l);
  const auto rows = read_shape_ledger(l);
  std::map<SourceKind, int> kinds;
  for (const auto& r : rows) ++kinds[r.source.kind];
  EXPECT_EQ(kinds[SourceKind::manual], 2);
  EXPECT_EQ(kinds[SourceKind::diagnostic], 1);
  EXPECT_GT(kinds[SourceKind::synthetic], 10);
  EXPECT_GT(kinds[SourceKind::model_config], 20);

  // Re-running every importer leaves the file byte-identical.
  run_caliber({"ledger", "models", "--op", "gemm", "--ledger", l, "--model-shapes", models, "--models",
               "llama-3-8b,deepseek-v3", "--tp", "1,8"});
  run_caliber({"ledger", "synthetic", "--op", "gemm", "--ledger", l});
  run_caliber({"ledger", "diagnostic", "--op", "gemm", "--ledger", l, "--shape", "m=4096,n=4096,k=4096"});
  const auto again = run_caliber({"ledger", "manual", "--op", "gemm", "--ledger", l, "--shape", "m=8,n=16,k=32",
                                  "--dtype", "bf16,fp32", "--notes", "mine"});
  EXPECT_NE(again.out.find("0 added, 0 updated, 2 unchanged, 0 removed"), std::string::npos) << again.out;
  EXPECT_EQ(slurp(l), first);

  // A new diagnostic shape replaces the old one and nothing else.
  run_caliber({"ledger", "diagnostic", "--op", "gemm", "--ledger", l, "--shape", "m=2048,n=2048,k=2048"});
  const auto after = read_shape_ledger(l);
  EXPECT_EQ(after.size(), rows.size());
  int diagnostics = 0;
  for (const auto& r : after) {
    if (r.source.kind == SourceKind::diagnostic) {
      ++diagnostics;
      EXPECT_EQ(r.args["m"], 2048);
    }
  }
  EXPECT_EQ(diagnostics, 1);
}

TEST(LedgerCli, BadOptionsAreRefusedWithoutWriting) {
  const std::string dir = fresh_dir("ledger_cli_bad");
  const std::string l = dir + "/shape_ledger.jsonl";
  auto r = run_caliber({"ledger", "manual", "--op", "conv", "--ledger", l, "--shape", "m=1,n=2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--op: unknown op 'conv'"), std::string::npos) << r.err;
  r = run_caliber({"ledger", "manual", "--op", "gemm", "--ledger", l, "--shape", "m=1,n=2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("field 'args.k': missing"), std::string::npos) << r.err;
  r = run_caliber({"ledger", "manual", "--op", "softmax", "--ledger", l, "--shape", "m=1,n=2,eps=0.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown argument of op softmax"), std::string::npos) << r.err;
  r = run_caliber({"ledger", "manual", "--op", "softmax", "--ledger", l, "--shape", "m=1,n=2", "--dtype", "fp8"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_caliber({"ledger", "models", "--op", "gemm", "--ledger", l, "--model-shapes",
                   std::string(CALIBER_SOURCE_DIR) + "/data/model_shapes.json", "--models", "gpt-9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model 'gpt-9'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(l));
}

TEST(LedgerCli, AMalformedExistingLedgerIsNotOverwritten) {
  const std::string dir = fresh_dir("ledger_cli_malformed");
  const std::string l = dir + "/shape_ledger.jsonl";
  testing_support::write_text(l, "{\"truncated\": \n");
  const auto r = run_caliber({"ledger", "synthetic", "--op", "softmax", "--ledger", l});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shape_ledger.jsonl:1: malformed JSON"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(l), "{\"truncated\": \n");
}

}  // namespace
}  // namespace caliber
