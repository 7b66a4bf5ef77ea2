// The frozen campaign manifest (docs/campaigns.md): everything that decides what a campaign's
// numbers mean, written and hash-bound before anything runs. `frozen` holds the ops, ledgers,
// matrices, providers (with their libraries' SHA-256), contracts, seeds, devices, the shards
// (their shape ids and the exact caliber run arguments of each), the canary, the retry policy and
// the harness (version, build, SHA-256 of the executable); manifest_sha256 = SHA-256 of
// frozen.dump() (nlohmann's compact form: object keys sorted). Every status file, receipt and
// seal carries it; --resume and every Slurm task rebuild the frozen part from their own options
// and binary and refuse to go on when it differs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/shape_ledger.h"
#include "campaign/campaign_plan.h"

namespace caliber::campaign {

inline constexpr const char* kManifestFileName = "campaign_manifest.json";
inline constexpr const char* kCampaignLedgerPath = "inputs/shape_ledger.jsonl";
inline constexpr const char* kCanaryDirName = "canary";

struct HarnessFingerprint {
  std::string version, git_revision, build_type, executable, executable_sha256;
};
// This caliber: CALIBER_VERSION, revision, build type, /proc/self/exe and its SHA-256.
HarnessFingerprint this_harness();

// The frozen part for these options and plan. `backend` is resolved (host|cuda), run_id and the
// verification seed are the campaign's.
nlohmann::json make_frozen_manifest(const BatchOptions& options, const CampaignPlan& plan, const std::string& backend,
                                    const std::string& run_id, const HarnessFingerprint& harness);

std::string manifest_sha256(const nlohmann::json& frozen);

struct Manifest {
  nlohmann::json frozen;
  std::string sha256;      // of frozen
  std::string created_at;  // UTC
  std::vector<std::string> command;
  std::string dir;         // the campaign directory it was read from
};

// Written atomically: {kind, schema_version, manifest_sha256, created_at, command, frozen}.
void write_manifest(const std::string& campaign_dir, const Manifest& manifest);
// Strict: kind and version known, manifest_sha256 equal to the SHA-256 of frozen (an edited
// manifest is an InputError).
Manifest read_manifest(const std::string& campaign_dir);

// The first path where two JSON values differ ("frozen.shards[1].shape_ids"), "" when equal.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& path = "frozen");

// A campaign's shard as the manifest states it: what a local batch and a Slurm task both run.
struct ShardWork {
  std::string name;                        // "rmsnorm/s0"
  std::string dir;                         // absolute
  std::string op;
  int device = 0;
  std::vector<std::string> run_arguments;  // caliber run's, without --resume / --rerun-cells
  std::vector<ShapeRow> shapes;            // ledger order
  std::vector<std::string> providers;      // matrix order
  std::string candidate_commit;
  // The campaign's providers denied graph capture for this op (runner/capture_failure.h): each
  // attempt of every shard of the op starts with them and adds the ones it learns.
  std::string capture_denied_file;
};
// Every shard of the manifest, its shapes read from the campaign's ledger in `campaign_dir`.
std::vector<ShardWork> manifest_shards(const Manifest& manifest);

struct RetryPolicy {
  int retries = 0;
  double shard_timeout_s = 0, kill_after_s = 0, cell_timeout_s = 0;
};
RetryPolicy manifest_policy(const Manifest& manifest);

}  // namespace caliber::campaign
