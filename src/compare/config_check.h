// Record-vs-record, refused per pair (docs/gate.md, "The config check"): a provider that chooses a
// configuration per shape (cuBLASLt's algorithm, an autotuner's winner) measures its choice. Two
// rows that each chose their own configuration compare two choices, not the change under test, so
// their latencies are not compared, as two rows of different contracts are not.
//
// A pair is comparable when neither row carries a config, when both ran the same key, or when one
// row replayed the configuration the other ran: its pinning is `replayed` and its source is the
// run where the other's configuration was chosen (the other's run_id, or the other's own source
// when it is itself a replay). A config on one side only is not like for like either.
#pragma once

#include <optional>
#include <string>

#include "compare/compare_row.h"

namespace caliber::compare {

// Why the two rows' configs make their latencies not comparable; nothing when they are comparable.
//   record-vs-record: baseline ran config 'X' (recorded), current ran 'Y' (recorded); replay the
//   baseline's configs with caliber run --replay-configs DIR
//   config on one side only: baseline ran config 'X' (recorded), current ran none
// `replay_dir` is the baseline's run directory as the user can pass it to --replay-configs
// (replay_directory_of).
std::optional<std::string> config_mismatch(const CompareRow& baseline, const CompareRow& current,
                                           const std::string& replay_dir);

// The run directory of a compare input, for --replay-configs: the input itself when it names a
// directory (no .jsonl/.csv/.json extension), else the directory of the file ("." for a bare file
// name). On the path's text only.
std::string replay_directory_of(const std::string& input);

}  // namespace caliber::compare
