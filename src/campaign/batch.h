// caliber batch (docs/batch.md): a campaign over ops x ledgers x matrices x devices. The
// manifest is frozen first (campaign_manifest.h), a canary cell must pass, then every shard runs
// as its own caliber run (shard_runner.h), shards of different devices side by side and shards
// of one device one after the other, with batch_status.json rewritten atomically as they go, and
// the shards' rows merged into one results set with a receipt per cell; a complete campaign is
// sealed. --slurm submits the shards as an sbatch job array instead (campaign/slurm.h).
#pragma once

#include <iosfwd>
#include <string>

#include "campaign/campaign_plan.h"

namespace caliber::campaign {

inline constexpr const char* kBatchStatusFileName = "batch_status.json";

// Returns the exit code: 0 every cell has its final row (with --strict: 1 when a cell failed or
// was incorrect); 1 the canary failed, or a shard stopped with cells left; 2 usage or input;
// 3 a preflight failed; 4 another caliber (a resumed campaign of another build, shards whose
// identities differ).
int run_batch(const BatchOptions& options, std::ostream& out, std::ostream& err);

// A Slurm array task (and the canary job): the shard `task` of the frozen campaign in
// `campaign_dir` (or its canary when task < 0), run with the manifest as its contract.
int run_batch_task(const std::string& campaign_dir, int task, std::ostream& err);

}  // namespace caliber::campaign
