// Receipts and the seal of a campaign (docs/campaigns.md).
//
// A receipt per cell, receipts/<op>/<shape hex>.<provider>.json, written by atomic rename when
// the cell's row is there: the campaign (run id, manifest SHA-256), the cell (op, shape, provider,
// shard, device), the hashes of its inputs (the campaign's ledger, the ledger row's canonical
// identity, the matrix, the provider library, the seeds), its code fingerprint (the shard's
// code_fingerprint.json: digest, source, the provider's code objects), the harness that measured
// it (from the shard's run identity), its result (status, reason, median, integrity verdict,
// SHA-256 of the row's line in the results) and attempts; receipt_sha256 = SHA-256 of the
// receipt's compact JSON without that field.
//
// The seal, campaign_seal.json, is written once every cell has its final row: the manifest's
// SHA-256, the merged results' SHA-256, each receipt's SHA-256 and the status counts, sealed by
// seal_sha256. A sealed campaign is final: --resume refuses it; re-accounting reads it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_manifest.h"
#include "campaign/merge_results.h"

namespace caliber::campaign {

inline constexpr const char* kReceiptsDirName = "receipts";
inline constexpr const char* kSealFileName = "campaign_seal.json";

std::string receipt_relative_path(const std::string& op, const std::string& shape_id, const std::string& provider);

// Writes (or refreshes) the receipt of every cell that has a row. attempts: "shape_id/provider"
// -> this session's attempts (absent: 0). only_shard: the receipts of that shard's cells only
// (what one attempt of it can change: its rows, its attempts, its code fingerprint and identity).
void write_receipts(const Manifest& manifest, const std::vector<ShardWork>& shards, const MergedResults& merged,
                    const std::map<std::string, int>& attempts, const std::optional<std::string>& only_shard = {});

// The receipt's own hash: SHA-256 of its compact JSON without receipt_sha256.
std::string receipt_sha256(nlohmann::json receipt);

void write_seal(const Manifest& manifest, const MergedResults& merged);

// Everything a reader can re-check without running anything: the manifest's inputs, every merged
// row against its receipt, the seal, and the shards' rows against their receipts
// (resume_problems). Each problem is one line.
struct Verification {
  std::size_t receipts_checked = 0;
  bool sealed = false;
  std::vector<std::string> problems;
  // "shape_id/provider" -> the problem with its receipt (missing, edited, row changed)
  std::map<std::string, std::string> cell_problems;
};
Verification verify_campaign(const std::string& campaign_dir);

// Before a resume merges anything: every receipt on disk is unedited and of this manifest, and
// the row each one records, unless it is a failed row (retried cells replace those), is still
// its cell's row in its shard's results, byte for byte. A row edited (or removed) after its
// receipt was written would otherwise be merged, receipted and sealed again as if measured.
// One line per problem; none when the resume may go on.
std::vector<std::string> resume_problems(const Manifest& manifest);

}  // namespace caliber::campaign
