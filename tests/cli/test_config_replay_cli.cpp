// caliber run --replay-configs end to end on the host backend (docs/runner.md, "Configs recorded
// and replayed"): a plugin that chooses (tests/plugins/test_plugins.c, caliber_test_configurable)
// and the built-in autotuner `tuned` record their choice; a replay pins it and says so per row; a
// pin the provider cannot use fails the cell; a source from another device is refused before
// anything runs; a resume keeps the replay mode.
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "results/benchmark_results.h"
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

ShapeRow rms_row(std::int64_t m, std::int64_t n) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

std::string rms_matrix(const std::string& symbol) {
  return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: caliber\n"
         "layout_contract: row_major\nproviders:\n"
         "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
         "  conf: {enabled: true, entrypoint: \"" + kPlugin + ":" + symbol + "\", provider: plugin}\n";
}

// A run directory with the ledger and matrix of the plugin tests.
std::string plugin_dir(const std::string& name, const std::string& symbol = "caliber_test_configurable") {
  const std::string dir = fresh_dir(name);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(4, 8), rms_row(6, 16)});
  write_text(dir + "/baseline_matrix.yaml", rms_matrix(symbol));
  return dir;
}

std::vector<std::string> run_args(const std::string& dir, const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", out, "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::map<std::string, BenchmarkResultRow> rows_of(const std::string& out, const std::string& provider) {
  std::map<std::string, BenchmarkResultRow> m;
  for (BenchmarkResultRow& r : read_benchmark_results(out + "/benchmark_results.jsonl")) {
    if (r.provider == provider) m.emplace(r.shape_id, std::move(r));
  }
  return m;
}

// The rows of `from` with `edit` applied to each, written as DIR/benchmark_results.jsonl.
void write_edited_source(const std::string& from, const std::string& dir,
                         const std::function<void(nlohmann::json&)>& edit) {
  std::filesystem::create_directories(dir);
  std::string text;
  std::istringstream in(slurp(from + "/benchmark_results.jsonl"));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    edit(j);
    text += j.dump() + "\n";
  }
  write_text(dir + "/benchmark_results.jsonl", text);
}

TEST(ConfigReplayCli, APluginsChoiceIsRecordedThenReplayed) {
  const std::string dir = plugin_dir("config_replay_plugin");
  const auto rec = run_caliber(run_args(dir, dir + "/rec"));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto recorded = rows_of(dir + "/rec", "conf");
  ASSERT_EQ(recorded.size(), 2u);
  std::string run_id;
  for (const auto& [shape, r] : recorded) {
    ASSERT_EQ(r.benchmark_status, BenchmarkStatus::ok) << r.status_reason.value_or("");
    ASSERT_TRUE(r.config.has_value()) << shape;
    EXPECT_EQ(*r.config, (ProviderConfig{ConfigPinning::recorded, "variant=a", "test plugin: variant=a", ""}));
    run_id = r.run_id;
  }
  for (const auto& [shape, r] : rows_of(dir + "/rec", "caliber")) EXPECT_FALSE(r.config.has_value()) << shape;

  // Replayed (here through the environment variable): same key, pinned, the recording run named.
  ::setenv("CALIBER_REPLAY_CONFIGS", (dir + "/rec").c_str(), 1);
  const auto rep = run_caliber(run_args(dir, dir + "/rep"));
  ::unsetenv("CALIBER_REPLAY_CONFIGS");
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  for (const auto& [shape, r] : rows_of(dir + "/rep", "conf")) {
    ASSERT_TRUE(r.config.has_value()) << shape;
    EXPECT_EQ(*r.config, (ProviderConfig{ConfigPinning::replayed, "variant=a", "test plugin: variant=a", run_id}));
    EXPECT_NE(r.run_id, run_id);
  }
  // A replay of the replay keeps the run the choice was first recorded in.
  const auto rep2 = run_caliber(run_args(dir, dir + "/rep2", {"--replay-configs", dir + "/rep"}));
  ASSERT_EQ(rep2.exit_code, 0) << rep2.err;
  for (const auto& [shape, r] : rows_of(dir + "/rep2", "conf")) EXPECT_EQ(r.config->source, run_id) << shape;

  // Resuming the replaying run without its source, or the recording run with one: refused (exit 4).
  const auto resume_without = run_caliber(run_args(dir, dir + "/rep", {"--resume"}));
  EXPECT_EQ(resume_without.exit_code, 4) << resume_without.err;
  EXPECT_NE(resume_without.err.find("its rows replay the configs of another run; resume it with the same "
                                    "--replay-configs"),
            std::string::npos)
      << resume_without.err;
  const auto resume_with = run_caliber(run_args(dir, dir + "/rec", {"--resume", "--replay-configs", dir + "/rep"}));
  EXPECT_EQ(resume_with.exit_code, 4) << resume_with.err;
  EXPECT_NE(resume_with.err.find("its rows recorded their own configs"), std::string::npos) << resume_with.err;
  const auto resume_same = run_caliber(run_args(dir, dir + "/rep", {"--resume", "--replay-configs", dir + "/rec"}));
  EXPECT_EQ(resume_same.exit_code, 0) << resume_same.err;
}

TEST(ConfigReplayCli, APinIsObeyedOrTheCellFails) {
  const std::string dir = plugin_dir("config_replay_pins");
  ASSERT_EQ(run_caliber(run_args(dir, dir + "/rec")).exit_code, 0);
  const auto recorded = rows_of(dir + "/rec", "conf");
  ASSERT_EQ(recorded.size(), 2u);
  const std::string first = recorded.begin()->first, second = std::next(recorded.begin())->first;
  // A source that pins the first shape to variant=b and the second to a variant the plugin
  // does not have.
  write_edited_source(dir + "/rec", dir + "/edited", [&](nlohmann::json& j) {
    if (j["provider"] != "conf") return;
    j["config"]["key"] = j["shape_id"] == first ? "variant=b" : "variant=zzz";
  });
  const auto r = run_caliber(run_args(dir, dir + "/out", {"--replay-configs", dir + "/edited"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;  // a failed cell is recorded, the run goes on
  const auto rows = rows_of(dir + "/out", "conf");
  ASSERT_EQ(rows.size(), 2u);
  const BenchmarkResultRow& b = rows.at(first);
  EXPECT_EQ(b.benchmark_status, BenchmarkStatus::ok) << b.status_reason.value_or("");
  ASSERT_TRUE(b.config.has_value());
  EXPECT_EQ(b.config->key, "variant=b");
  EXPECT_EQ(b.config->pinning, ConfigPinning::replayed);
  const BenchmarkResultRow& z = rows.at(second);
  EXPECT_EQ(z.benchmark_status, BenchmarkStatus::failed);
  EXPECT_FALSE(z.median_us.has_value());
  EXPECT_NE(z.status_reason.value_or("").find("plugin pin_config('variant=zzz') refused: test plugin: no such variant"),
            std::string::npos)
      << z.status_reason.value_or("");
  // A provider that chooses nothing cannot be pinned: the built-in caliber rmsnorm.
  write_edited_source(dir + "/rec", dir + "/pin_builtin", [&](nlohmann::json& j) {
    if (j["provider"] == "caliber") j["config"] = {{"pinning", "recorded"}, {"key", "tile=9"}, {"description", ""},
                                                   {"source", nullptr}};
  });
  ASSERT_EQ(run_caliber(run_args(dir, dir + "/out_builtin", {"--replay-configs", dir + "/pin_builtin"})).exit_code, 0);
  for (const auto& [shape, row] : rows_of(dir + "/out_builtin", "caliber")) {
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::failed) << shape;
    EXPECT_NE(row.status_reason.value_or("").find("tile=9"), std::string::npos) << row.status_reason.value_or("");
  }
}

TEST(ConfigReplayCli, SourcesFromElsewhereAreRefusedBeforeAnythingRuns) {
  const std::string dir = plugin_dir("config_replay_refusals");
  ASSERT_EQ(run_caliber(run_args(dir, dir + "/rec")).exit_code, 0);
  // Another device model.
  write_edited_source(dir + "/rec", dir + "/other_gpu", [](nlohmann::json& j) { j["gpu"] = "Some Other CPU"; });
  const auto other = run_caliber(run_args(dir, dir + "/out", {"--replay-configs", dir + "/other_gpu"}));
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("its configs were chosen on Some Other CPU"), std::string::npos) << other.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
  // Not a run directory, and a run of another op.
  const auto none = run_caliber(run_args(dir, dir + "/out", {"--replay-configs", dir}));
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("no benchmark_results.jsonl there"), std::string::npos) << none.err;
  write_edited_source(dir + "/rec", dir + "/other_op", [](nlohmann::json& j) { j["op_type"] = "softmax"; });
  const auto op = run_caliber(run_args(dir, dir + "/out", {"--replay-configs", dir + "/other_op"}));
  EXPECT_EQ(op.exit_code, 2) << op.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
}

TEST(ConfigReplayCli, PluginsBuiltBeforeTheCallbacksStillLoadAndHalfAConfigIsRefused) {
  const std::string old_dir = plugin_dir("config_replay_base_struct", "caliber_test_base_struct");
  const auto old = run_caliber(run_args(old_dir, old_dir + "/out"));
  ASSERT_EQ(old.exit_code, 0) << old.err;
  for (const auto& [shape, r] : rows_of(old_dir + "/out", "conf")) {
    EXPECT_EQ(r.benchmark_status, BenchmarkStatus::ok) << r.status_reason.value_or("");
    EXPECT_FALSE(r.config.has_value());
  }
  const std::string half_dir = plugin_dir("config_replay_half", "caliber_test_half_config");
  const auto half = run_caliber(run_args(half_dir, half_dir + "/out"));
  EXPECT_EQ(half.exit_code, 3) << half.err;
  EXPECT_NE(half.err.find("fills only one of pin_config and chosen_config"), std::string::npos) << half.err;
}

TEST(ConfigReplayCli, TheHostAutotunerRecordsItsPanelAndReplaysIt) {
  const std::string dir = fresh_dir("config_replay_tuned");
  ledger::RowTemplate t;
  t.op = ops::OpType::gemm;
  write_shape_ledger(dir + "/shape_ledger.jsonl",
                     {ledger::make_row(t, DType::fp32, {{"m", 33}, {"n", 300}, {"k", 17}}, Stage::mixed, std::nullopt,
                                       {SourceKind::manual, "test", ""}, "")});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: gemm\nop_type: gemm\ndtype: [fp32]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
             "  tuned: {enabled: true, entrypoint: \"builtin:tuned\", provider: caliber}\n");
  auto args = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a = {"run", "--op", "gemm", "--backend", "host", "--shape-ledger",
                                  dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                  "--out", out, "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto rec = run_caliber(args(dir + "/rec", {}));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto recorded = rows_of(dir + "/rec", "tuned");
  ASSERT_EQ(recorded.size(), 1u);
  const BenchmarkResultRow& r = recorded.begin()->second;
  ASSERT_EQ(r.benchmark_status, BenchmarkStatus::ok) << r.status_reason.value_or("");
  ASSERT_TRUE(r.config.has_value());
  EXPECT_EQ(r.config->pinning, ConfigPinning::recorded);
  EXPECT_TRUE(r.config->key == "panel=64" || r.config->key == "panel=128" || r.config->key == "panel=256")
      << r.config->key;
  // Pinned to a panel width it would perhaps not have chosen: it runs that one.
  write_edited_source(dir + "/rec", dir + "/pin256", [](nlohmann::json& j) {
    if (j["provider"] == "tuned") j["config"]["key"] = "panel=256";
  });
  const auto rep = run_caliber(args(dir + "/rep", {"--replay-configs", dir + "/pin256"}));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const auto replayed = rows_of(dir + "/rep", "tuned");
  ASSERT_EQ(replayed.size(), 1u);
  const BenchmarkResultRow& p = replayed.begin()->second;
  EXPECT_EQ(p.benchmark_status, BenchmarkStatus::ok) << p.status_reason.value_or("");
  EXPECT_EQ(p.config->key, "panel=256");
  EXPECT_EQ(p.config->pinning, ConfigPinning::replayed);
  EXPECT_EQ(p.config->source, r.run_id);
  // A panel width it does not have fails the cell.
  write_edited_source(dir + "/rec", dir + "/pin96", [](nlohmann::json& j) {
    if (j["provider"] == "tuned") j["config"]["key"] = "panel=96";
  });
  ASSERT_EQ(run_caliber(args(dir + "/bad", {"--replay-configs", dir + "/pin96"})).exit_code, 0);
  EXPECT_EQ(rows_of(dir + "/bad", "tuned").begin()->second.benchmark_status, BenchmarkStatus::failed);
}

}  // namespace
}  // namespace caliber
