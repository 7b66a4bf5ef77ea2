#include "compare/config_check.h"

#include <filesystem>

#include <fmt/format.h>

namespace caliber::compare {
namespace {

// The run where the row's configuration was chosen: the source of a replay (kept through replays
// of replays), else the row's own run.
const std::string& chosen_in(const CompareRow& row) {
  return row.config->pinning == ConfigPinning::replayed ? row.config->source : row.run_id;
}

// True when `row` replayed the configuration `other` ran.
bool replays(const CompareRow& row, const CompareRow& other) {
  return row.config->pinning == ConfigPinning::replayed && !chosen_in(other).empty() &&
         row.config->source == chosen_in(other);
}

// "(recorded)", "(not_in_replay_source)", "(replayed from run R)".
std::string pinning_text(const ProviderConfig& c) {
  if (c.pinning == ConfigPinning::replayed) return fmt::format("(replayed from run {})", c.source);
  return fmt::format("({})", to_string(c.pinning));
}

}  // namespace

std::optional<std::string> config_mismatch(const CompareRow& baseline, const CompareRow& current,
                                           const std::string& replay_dir) {
  const auto& b = baseline.config;
  const auto& c = current.config;
  if (!b && !c) return std::nullopt;
  if (!b || !c) {
    return fmt::format("config on one side only: baseline ran {}, current ran {}",
                       b ? fmt::format("config '{}' {}", b->key, pinning_text(*b)) : std::string("none"),
                       c ? fmt::format("config '{}' {}", c->key, pinning_text(*c)) : std::string("none"));
  }
  if (b->key == c->key || replays(current, baseline) || replays(baseline, current)) return std::nullopt;
  return fmt::format("record-vs-record: baseline ran config '{}' {}, current ran '{}' {}; replay the baseline's "
                     "configs with caliber run --replay-configs {}",
                     b->key, pinning_text(*b), c->key, pinning_text(*c), replay_dir);
}

std::string replay_directory_of(const std::string& input) {
  const std::filesystem::path p(input);
  const std::string ext = p.extension().string();
  if (ext != ".jsonl" && ext != ".csv" && ext != ".json") return input;
  const std::string parent = p.parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace caliber::compare
