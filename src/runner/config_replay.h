// Configs recorded and replayed (docs/runner.md, "Configs recorded and replayed"): a provider
// that chooses a configuration per shape (cuBLASLt's algorithm, an autotuner's winner) records
// its choice in every row; `caliber run --replay-configs DIR` pins each cell to the choice DIR's
// run recorded for it, so two runs compared differ only in what is under test.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "results/benchmark_results.h"
#include "caliber/device.h"
#include "providers/provider.h"

namespace caliber::runner {

// The configs a finished run recorded for one op, by (shape_id, provider), with the device they
// were chosen on. A config replayed there keeps the run it was first recorded in as its source.
struct ConfigReplaySource {
  std::string dir;
  std::string backend, gpu, arch;  // of its rows
  std::map<std::pair<std::string, std::string>, ProviderConfig> configs;
  // The calls per graph of each cell's kernel-only measurement (graph schedule only): a run that
  // replays DIR takes them instead of choosing them afresh (--graph-calls auto), so the two runs'
  // contracts are the same.
  std::map<std::pair<std::string, std::string>, std::int64_t> graph_calls;
};

// Reads DIR/benchmark_results.jsonl (the strict reader). Throws UsageError when DIR holds no
// results file or no row of `op`, and when its rows come from more than one device.
ConfigReplaySource read_config_replay_source(const std::string& dir, const std::string& op);

// Why the configs of `source` cannot be replayed on `here` (another backend, another device
// model or architecture: a choice made for one device is not a choice for another); nothing when
// they can.
std::optional<std::string> config_replay_refusal(const ConfigReplaySource& source, const DeviceInfo& here);

// The key to pin for a cell, when the source recorded one.
std::optional<ProviderConfig> pinned_config_for(const ConfigReplaySource& source, const std::string& shape_id,
                                                const std::string& provider);

// The calls per graph the source's kernel-only measurement of the cell used, when it was a graph.
std::optional<std::int64_t> pinned_graph_calls_for(const ConfigReplaySource& source, const std::string& shape_id,
                                                   const std::string& provider);

// The row's config from what the provider reports after prepare() and what was pinned:
// nothing when it chose nothing and nothing was pinned; replayed when it ran the pinned key;
// not_in_replay_source when a replay had nothing for the cell; recorded otherwise. Sets
// `refusal` (the cell fails) when a pinned key was not what the provider ran.
std::optional<ProviderConfig> row_config(const std::optional<providers::Provider::ChosenConfig>& chosen,
                                         const std::optional<ProviderConfig>& pinned, bool replaying,
                                         std::string* refusal);

}  // namespace caliber::runner
