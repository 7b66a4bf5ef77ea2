#include "campaign/merge_results.h"

#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "caliber/run_identity.h"
#include "identity/collect_run_identity.h"
#include "io/benchmark_results_csv.h"
#include "io/benchmark_results_json.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;

}  // namespace

MergedResults merge_shard_results(const Manifest& manifest, const std::vector<ShardWork>& shards, std::ostream& err) {
  MergedResults merged;
  const fs::path dir = fs::path(manifest.dir);
  AtomicFiles files;
  std::ostream& jsonl = files.open((dir / kBenchmarkResultsFileName).string());
  std::ostream& csv = files.open((dir / kBenchmarkResultsCsvFileName).string());
  write_benchmark_results_csv_header(csv);
  std::optional<RunIdentity> first;
  std::string first_name;
  std::vector<HashedFile> providers;
  const std::string harness_sha = manifest.frozen.at("harness").at("executable_sha256").get<std::string>();
  for (const ShardWork& s : shards) {
    std::string why_missing;
    const std::optional<RunIdentity> id = find_run_identity(s.dir, &why_missing);
    if (!id) continue;  // a shard that has not measured yet has no rows either
    ++merged.shards_with_identity;
    if (id->harness.executable_sha256 != harness_sha) {
      err << fmt::format("!!! [caliber] harness.executable_sha256: A={} (the campaign manifest), B={} ({})\n",
                         harness_sha, id->harness.executable_sha256, s.name);
      throw CaliberMismatchError(fmt::format(
          "shard {} was measured by another caliber binary than the campaign's manifest names", s.name));
    }
    if (!first) {
      first = id;
      first_name = s.name;
    } else {
      const CaliberComparison c = compare_identities(first, id);
      if (!c.comparable()) err << fmt::format("[caliber] shard {} (A) vs shard {} (B):\n", first_name, s.name);
      require_same_caliber(c, /*allow_mismatch=*/false, err, first_name, s.name);
    }
    for (const HashedFile& f : id->providers) {
      if (std::find(providers.begin(), providers.end(), f) == providers.end()) providers.push_back(f);
    }
    const std::string results = (fs::path(s.dir) / kBenchmarkResultsFileName).string();
    std::error_code ec;
    if (!fs::exists(results, ec)) continue;
    for_each_benchmark_result(results, [&](std::string_view text, const BenchmarkResultRow& row, long) {
      jsonl << text << '\n';
      write_benchmark_results_csv_row(csv, row);
      merged.time.add(row);
      merged.lines.push_back(cell_line(row, text));
      merged.shard_of_cell[merged.lines.back().cell()] = s.name;
    });
  }
  files.commit();
  if (first) {
    // The campaign's identity: the shards' (one caliber), under the campaign's run id, with every
    // provider library any shard loaded; the matrices are per op, in the manifest.
    RunIdentity id = *first;
    id.run_id = manifest.frozen.at("run_id").get<std::string>();
    id.command = manifest.command;
    id.outputs = {kBenchmarkResultsFileName, kBenchmarkResultsCsvFileName};
    id.providers = providers;
    if (manifest.frozen.at("matrices").size() != 1) id.baseline_matrix.reset();
    write_run_identity((dir / kRunIdentityFileName).string(), id);
  }
  return merged;
}

}  // namespace caliber::campaign
