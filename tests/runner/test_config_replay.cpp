#include "runner/config_replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "caliber/errors.h"

namespace caliber::runner {
namespace {

using Chosen = providers::Provider::ChosenConfig;

ProviderConfig replayed(const std::string& key, const std::string& source) {
  return ProviderConfig{ConfigPinning::replayed, key, "", source};
}

TEST(ConfigReplay, RowConfigSaysHowTheChoiceWasFixed) {
  std::string refusal;
  // Chose nothing, nothing pinned: no config.
  EXPECT_FALSE(row_config(std::nullopt, std::nullopt, false, &refusal).has_value());
  EXPECT_FALSE(row_config(std::nullopt, std::nullopt, true, &refusal).has_value());
  EXPECT_TRUE(refusal.empty());
  // Chose, no replay: recorded, no source.
  EXPECT_EQ(*row_config(Chosen{"panel=128", "panels of 128"}, std::nullopt, false, &refusal),
            (ProviderConfig{ConfigPinning::recorded, "panel=128", "panels of 128", ""}));
  // Chose, a replay that had nothing for this cell: chosen afresh and said so.
  EXPECT_EQ(row_config(Chosen{"panel=64", ""}, std::nullopt, true, &refusal)->pinning,
            ConfigPinning::not_in_replay_source);
  // Ran the pinned key: replayed, with the run it was recorded in.
  EXPECT_EQ(*row_config(Chosen{"panel=256", "d"}, replayed("panel=256", "run-1"), true, &refusal),
            (ProviderConfig{ConfigPinning::replayed, "panel=256", "d", "run-1"}));
  EXPECT_TRUE(refusal.empty());
}

TEST(ConfigReplay, APinTheProviderDidNotRunIsRefused) {
  std::string refusal;
  EXPECT_FALSE(row_config(Chosen{"panel=64", ""}, replayed("panel=256", "run-1"), true, &refusal).has_value());
  EXPECT_EQ(refusal, "config 'panel=256' (recorded in run run-1) was pinned, but the provider ran 'panel=64'");
  refusal.clear();
  EXPECT_FALSE(row_config(std::nullopt, replayed("panel=256", "run-1"), true, &refusal).has_value());
  EXPECT_EQ(refusal, "config 'panel=256' (recorded in run run-1) was pinned, but the provider reports no config");
}

TEST(ConfigReplay, ChoicesAreReplayedOnlyWhereTheyWereMade) {
  ConfigReplaySource source;
  source.dir = "runs/a";
  source.backend = "cuda";
  source.gpu = "NVIDIA H200";
  source.arch = "sm_90";
  DeviceInfo here;
  here.backend = BackendKind::cuda;
  here.name = "NVIDIA H200";
  here.arch = "sm_90";
  EXPECT_FALSE(config_replay_refusal(source, here).has_value());
  DeviceInfo other_model = here;
  other_model.name = "NVIDIA H100 80GB HBM3";
  ASSERT_TRUE(config_replay_refusal(source, other_model).has_value());
  EXPECT_EQ(*config_replay_refusal(source, other_model),
            "--replay-configs runs/a: its configs were chosen on NVIDIA H200 (sm_90), this run is on NVIDIA H100 80GB "
            "HBM3 (sm_90): a choice is replayed only on the device model it was made for");
  DeviceInfo other_arch = here;
  other_arch.arch = "sm_100";
  EXPECT_TRUE(config_replay_refusal(source, other_arch).has_value());
  DeviceInfo host;
  host.backend = BackendKind::host;
  host.name = "NVIDIA H200";
  host.arch = "sm_90";
  ASSERT_TRUE(config_replay_refusal(source, host).has_value());
  EXPECT_NE(config_replay_refusal(source, host)->find("chosen on the cuda backend, this run is host"), std::string::npos);
}

TEST(ConfigReplay, PinsByShapeAndProvider) {
  ConfigReplaySource source;
  source.configs[{"sha1:aa", "cublaslt"}] = replayed("algo-1", "run-1");
  source.configs[{"sha1:bb", "cublaslt"}] = replayed("algo-2", "run-1");
  EXPECT_EQ(pinned_config_for(source, "sha1:bb", "cublaslt")->key, "algo-2");
  EXPECT_FALSE(pinned_config_for(source, "sha1:bb", "cublas").has_value());
  EXPECT_FALSE(pinned_config_for(source, "sha1:cc", "cublaslt").has_value());
}

TEST(ConfigReplay, ASourceKeepsEachCellsCallsPerGraph) {
  // The fixture's rows were measured with 20 calls per graph; a replay takes that count.
  const ConfigReplaySource source = read_config_replay_source(std::string(CALIBER_TEST_DATA) + "/report/fixture", "rmsnorm");
  EXPECT_EQ(pinned_graph_calls_for(source, "sha1:3818b886b870d9a2", "caliber"), std::optional<std::int64_t>(20));
  EXPECT_FALSE(pinned_graph_calls_for(source, "sha1:3818b886b870d9a2", "nobody").has_value());
  EXPECT_FALSE(pinned_graph_calls_for(source, "sha1:0000000000000000", "caliber").has_value());
}

TEST(ConfigReplay, ASourceWithoutResultsIsAUsageError) {
  const std::string dir = (std::filesystem::path(::testing::TempDir()) / "config_replay_empty").string();
  std::filesystem::create_directories(dir);
  try {
    read_config_replay_source(dir, "gemm");
    FAIL() << "accepted a directory without results";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--replay-configs " + dir +
                                         ": no benchmark_results.jsonl there (it names the directory of a caliber run)");
  }
}

}  // namespace
}  // namespace caliber::runner
