// A frozen campaign's shards run by this process (caliber batch without --slurm, docs/batch.md):
// shards of one device one after the other, devices side by side, each device's shards measured
// by one device server (or a worker process per shard); batch_status.json and a progress line as
// they go; at the end the shards' rows merged, the receipts refreshed, a complete campaign sealed.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_manifest.h"
#include "campaign/device_servers.h"
#include "campaign/merge_results.h"
#include "campaign/shard_runner.h"
#include "results/time_breakdown.h"

namespace caliber::campaign {

// How often running shards are looked at (a poll reads only the rows appended since the last):
// a shard's attempt that ended is seen within this, and the device's next attempt starts at once.
inline constexpr double kPollS = 0.01;

// Seconds on the steady clock.
double now_s();

// A duration as a reader reads it: "42s", "3m05s"; "?" when unknown.
std::string duration_text(double s);

class Campaign {
 public:
  Campaign(Manifest manifest, std::ostream& err, int session, bool device_servers = false);

  // Runs every shard to its end: shards of one device one after the other, devices side by side.
  void run_all();

  // Merges the shards, refreshes the receipts, seals a complete campaign. Returns the exit code
  // (run_batch's).
  int finish(bool strict);

  const std::vector<ShardWork>& shards() const { return shards_; }
  // The socket of `device`'s server, started when none runs; "" without device servers.
  std::string device_server(int device) { return use_servers_ ? servers_.ensure(device) : ""; }
  void set_canary_s(double s) { canary_s_ = s; }
  const Manifest& manifest() const { return m_; }

 private:
  // What one pass over the devices did.
  struct Pass {
    bool changed = false, busy = false, moved_on = false;
    std::vector<const ShardRunner*> ended;  // attempts that ended in this pass
  };

  // One device's turn in a pass: its current shard takes a step (`k`: its place in `list`).
  void step_device(int device, const std::vector<std::size_t>& list, std::size_t& k, Pass& pass);

  // The last attempt's merge and receipts stand (each attempt refreshed its shard's); without an
  // attempt in this session, everything is merged and every receipt refreshed here.
  const MergedResults& merge_for_finish();

  // The shards at the end: the first refusal's exit code, the cells without a row, whether a row
  // failed (failed, incorrect, faster than physical). Each shard's note goes to err_.
  struct ShardTally {
    int code = 0;
    std::size_t missing = 0;
    bool bad = false;
  };
  ShardTally tally_shards();

  // Where the campaign's time went (batch_status.json's time): the cells, and outside them the
  // shards' processes (their cells included), the merging of results and the receipts after each
  // attempt; the rest is the batch waiting between polls and starting processes. Returns the
  // shards' processes' seconds.
  double note_time(const TimeBreakdown& time, double wall_s);

  // Says on err_ where the time went (note_time's figures).
  void print_time(const TimeBreakdown& time, double wall_s, double attempts_s);

  // Attempts per cell ("<shard>/<key>"), for the receipts.
  std::map<std::string, int> attempts() const;
  // After every attempt that ended: the merged set and the receipts follow (a kill loses nothing).
  void after_attempt(const ShardRunner& r);
  // batch_status.json, rewritten atomically: the campaign's state, its cells by status, its shards.
  void write_status(const std::string& state);
  // Seconds left at this session's pace; null before a cell of this session is final.
  nlohmann::json eta_s(std::size_t done, std::size_t total) const;
  // A line of its own, then the progress line again.
  void progress_note(const std::string& line);
  // The progress line: rewritten in place on a terminal, else one line every kPlainProgressS.
  void progress(bool final_line);

  Manifest m_;
  std::ostream& err_;
  int session_;
  std::string executable_;
  bool use_servers_;
  std::vector<ShardWork> shards_;
  std::vector<std::unique_ptr<ShardRunner>> runners_;
  // One measuring process per device for all of its shards (docs/batch.md).
  DeviceServers servers_{executable_, m_.frozen.at("backend").get<std::string>(), m_.dir};
  bool terminal_ = false;
  double started_s_ = now_s();
  double last_line_s_ = 0;
  std::size_t done_at_start_ = 0;
  bool ran_here_ = false;          // run_all ran the shards in this process (not Slurm)
  std::size_t previous_rows_ = 0;  // rows the results held before this session ran
  nlohmann::json time_;            // where the time went, once the campaign ended (results/time_breakdown.h)
  double merging_s_ = 0;           // merging the shards' results and writing receipts
  std::optional<MergedResults> merged_;  // after the last attempt that ended
  bool merged_once_ = false;              // every receipt was refreshed in this session
  double canary_s_ = 0;            // the canary's run, before the shards
};

}  // namespace caliber::campaign
