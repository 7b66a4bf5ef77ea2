#include "runner/config_replay.h"

#include <filesystem>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "io/benchmark_results_json.h"

namespace caliber::runner {

ConfigReplaySource read_config_replay_source(const std::string& dir, const std::string& op) {
  namespace fs = std::filesystem;
  const std::string file = (fs::path(dir) / kBenchmarkResultsFileName).string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    throw UsageError(fmt::format("--replay-configs {}: no {} there (it names the directory of a caliber run)", dir,
                                 kBenchmarkResultsFileName));
  }
  ConfigReplaySource source;
  source.dir = dir;
  bool any = false;
  for (const BenchmarkResultRow& r : read_benchmark_results(file)) {
    if (r.op_type != op) continue;
    if (!any) {
      source.backend = r.backend;
      source.gpu = r.gpu;
      source.arch = r.arch;
      any = true;
    } else if (r.backend != source.backend || r.gpu != source.gpu || r.arch != source.arch) {
      throw UsageError(fmt::format("--replay-configs {}: its rows come from more than one device ({} {} {} and {} {} {})",
                                   file, source.backend, source.gpu, source.arch, r.backend, r.gpu, r.arch));
    }
    if (r.kernel_only && r.kernel_only->contract.schedule == Schedule::graph) {
      source.graph_calls[{r.shape_id, r.provider}] = r.kernel_only->contract.graph_calls;
    }
    if (!r.config) continue;
    ProviderConfig c = *r.config;
    if (c.pinning != ConfigPinning::replayed) c.source = r.run_id;  // recorded there: that run is the source
    c.pinning = ConfigPinning::replayed;
    source.configs[{r.shape_id, r.provider}] = std::move(c);
  }
  if (!any) throw UsageError(fmt::format("--replay-configs {}: no row of op {} to replay", file, op));
  return source;
}

std::optional<std::string> config_replay_refusal(const ConfigReplaySource& source, const DeviceInfo& here) {
  const std::string backend(to_string(here.backend));
  if (source.backend != backend) {
    return fmt::format("--replay-configs {}: its configs were chosen on the {} backend, this run is {}: a choice is "
                       "replayed only on the backend and device model it was made for",
                       source.dir, source.backend, backend);
  }
  if (source.gpu != here.name || source.arch != here.arch) {
    return fmt::format("--replay-configs {}: its configs were chosen on {} ({}), this run is on {} ({}): a choice is "
                       "replayed only on the device model it was made for",
                       source.dir, source.gpu, source.arch, here.name, here.arch);
  }
  return std::nullopt;
}

std::optional<ProviderConfig> pinned_config_for(const ConfigReplaySource& source, const std::string& shape_id,
                                                const std::string& provider) {
  const auto it = source.configs.find({shape_id, provider});
  if (it == source.configs.end()) return std::nullopt;
  return it->second;
}

std::optional<std::int64_t> pinned_graph_calls_for(const ConfigReplaySource& source, const std::string& shape_id,
                                                   const std::string& provider) {
  const auto it = source.graph_calls.find({shape_id, provider});
  if (it == source.graph_calls.end()) return std::nullopt;
  return it->second;
}

std::optional<ProviderConfig> row_config(const std::optional<providers::Provider::ChosenConfig>& chosen,
                                         const std::optional<ProviderConfig>& pinned, bool replaying,
                                         std::string* refusal) {
  if (!chosen) {
    if (pinned) {
      *refusal = fmt::format("config '{}' (recorded in run {}) was pinned, but the provider reports no config",
                             pinned->key, pinned->source);
    }
    return std::nullopt;
  }
  ProviderConfig c;
  c.key = chosen->key;
  c.description = chosen->description;
  if (pinned) {
    if (chosen->key != pinned->key) {
      *refusal = fmt::format("config '{}' (recorded in run {}) was pinned, but the provider ran '{}'", pinned->key,
                             pinned->source, chosen->key);
      return std::nullopt;
    }
    c.pinning = ConfigPinning::replayed;
    c.source = pinned->source;
  } else {
    c.pinning = replaying ? ConfigPinning::not_in_replay_source : ConfigPinning::recorded;
  }
  return c;
}

}  // namespace caliber::runner
