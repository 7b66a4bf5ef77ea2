// Merging shards into one results set refuses shards whose run identities differ in a caliber
// field (a Slurm task on a node with another build or driver), and shards measured by another
// binary than the manifest names.
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "campaign/merge_results.h"
#include "support/run_cli.h"
#include "support/sample_identity.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;

struct TwoShards {
  Manifest manifest;
  std::vector<ShardWork> shards;
};

TwoShards two_shards(const std::string& name, RunIdentity a, RunIdentity b) {
  TwoShards t;
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  t.manifest.dir = dir;
  t.manifest.frozen = {{"run_id", "campaign-1"},
                       {"harness", {{"executable_sha256", a.harness.executable_sha256}}},
                       {"matrices", nlohmann::json::array()}};
  for (const auto& [shard, id] : {std::pair{"s0", &a}, std::pair{"s1", &b}}) {
    ShardWork w;
    w.name = std::string("rmsnorm/") + shard;
    w.dir = dir + "/shards/rmsnorm/" + shard;
    fs::create_directories(w.dir);
    write_run_identity(w.dir + "/run_identity.json", *id);
    t.shards.push_back(w);
  }
  return t;
}

TEST(MergeResults, ShardsOfOneCaliberMerge) {
  const RunIdentity id = testing_support::sample_identity();
  const TwoShards t = two_shards("merge_same", id, id);
  std::ostringstream err;
  const MergedResults m = merge_shard_results(t.manifest, t.shards, err);
  EXPECT_EQ(m.shards_with_identity, 2u);
  EXPECT_EQ(read_run_identity(t.manifest.dir + "/run_identity.json").run_id, "campaign-1");
}

TEST(MergeResults, ShardsOfAnotherCaliberAreRefused) {
  const RunIdentity a = testing_support::sample_identity();
  RunIdentity b = a;
  b.device.driver_version = "999.0";
  const TwoShards t = two_shards("merge_other_driver", a, b);
  std::ostringstream err;
  EXPECT_THROW(merge_shard_results(t.manifest, t.shards, err), CaliberMismatchError);
  EXPECT_NE(err.str().find("!!! [caliber] device.driver_version"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(t.manifest.dir + "/benchmark_results.jsonl"));  // nothing written
}

TEST(MergeResults, AShardOfAnotherBinaryIsRefused) {
  const RunIdentity a = testing_support::sample_identity();
  RunIdentity b = a;
  b.harness.executable_sha256 = std::string(64, 'f');
  const TwoShards t = two_shards("merge_other_binary", a, b);
  std::ostringstream err;
  EXPECT_THROW(merge_shard_results(t.manifest, t.shards, err), CaliberMismatchError);
  EXPECT_NE(err.str().find("harness.executable_sha256"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace caliber::campaign
