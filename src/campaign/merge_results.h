// The campaign's one results set (docs/batch.md, "Results"): every shard's rows, line for line,
// in <campaign>/benchmark_results.jsonl (and .csv), with one run_identity.json, so that caliber
// report, compare and ab read a campaign like a caliber run directory. Shards whose identities
// differ in a caliber field (another build, device model, driver, contract, ledger: a Slurm task
// on another node) are refused by the one caliber check (docs/identity.md) before anything is
// written.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "campaign/campaign_manifest.h"
#include "campaign/result_lines.h"
#include "results/time_breakdown.h"

namespace caliber::campaign {

struct MergedResults {
  std::vector<CellLine> lines;                        // shard order
  TimeBreakdown time;                                 // over every merged row
  std::map<std::string, std::string> shard_of_cell;   // "shape_id/provider" -> shard name
  std::size_t shards_with_identity = 0;
};

// Reads every shard, checks their identities against the first (and its harness against the
// manifest's), writes the merged files atomically, a row at a time (bounded memory). Throws CaliberMismatchError (exit 4) after
// printing each difference as "!!! [caliber] <field>: A=<shard>, B=<shard>".
MergedResults merge_shard_results(const Manifest& manifest, const std::vector<ShardWork>& shards, std::ostream& err);

}  // namespace caliber::campaign
