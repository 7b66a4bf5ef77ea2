// Progress of a run on stderr: on a terminal one line rewritten in place (cells done/total,
// current shape and provider, ETA); otherwise one plain log line per finished cell.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "results/benchmark_results.h"
#include "caliber/clock.h"
#include "ledger/shape_ledger.h"

namespace caliber::runner {

class Progress {
 public:
  Progress(std::ostream& out, bool terminal, Clock& clock, std::size_t total_cells, std::size_t already_done);

  void started(const std::string& shape_label, const std::string& provider);
  void finished(const BenchmarkResultRow& row, const std::string& shape_label);
  // " [kernel-only precision not reached: ...]" for each measurement that stopped short of it.
  static std::string precision_note(const BenchmarkResultRow& row);
  // A line that must not be overwritten (a worker restart, a warning).
  void note(const std::string& line);
  void done();

  // "1m05s", "42s": remaining time at the mean pace of this session's cells; "?" before any.
  std::string eta() const;

 private:
  void redraw();

  std::ostream& out_;
  bool terminal_;
  Clock& clock_;
  std::size_t total_;
  std::size_t done_;
  std::size_t done_this_session_ = 0;
  double start_us_;
  std::string current_;
};

// "rmsnorm bf16 m=4096 n=8192 [prefill llama-3-8b]", for log lines.
std::string shape_label(const ShapeRow& row);

}  // namespace caliber::runner
