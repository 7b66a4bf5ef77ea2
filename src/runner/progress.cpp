#include "runner/progress.h"

#include <ostream>

#include <fmt/format.h>

#include "ops/op_shape.h"
#include "core/unit_text.h"

namespace caliber::runner {

std::string shape_label(const ShapeRow& row) {
  std::string args;
  for (const auto& [k, v] : row.args.items()) args += fmt::format("{}{}={}", args.empty() ? "" : " ", k, v.dump());
  return fmt::format("{} {} {} [{}{}]", row.op_type, to_string(row.dtype), args, to_string(row.stage),
                     row.model ? " " + *row.model : "");
}

Progress::Progress(std::ostream& out, bool terminal, Clock& clock, std::size_t total_cells, std::size_t already_done)
    : out_(out), terminal_(terminal), clock_(clock), total_(total_cells), done_(already_done),
      start_us_(clock.now_us()) {}

std::string Progress::eta() const {
  if (done_this_session_ == 0) return "?";
  const double per_cell_s = (clock_.now_us() - start_us_) / 1e6 / static_cast<double>(done_this_session_);
  const double left_s = per_cell_s * static_cast<double>(total_ > done_ ? total_ - done_ : 0);
  const auto s = static_cast<long long>(left_s + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

void Progress::redraw() {
  if (!terminal_) return;
  const double pct = total_ ? 100.0 * static_cast<double>(done_) / static_cast<double>(total_) : 100.0;
  out_ << fmt::format("\r\033[K[{}/{}] {:.0f}% ETA {} {}", done_, total_, pct, eta(), current_) << std::flush;
}

void Progress::started(const std::string& label, const std::string& provider) {
  current_ = fmt::format("{} / {}", label, provider);
  redraw();
}

// A measurement that stopped before its stated precision (the adaptive rule's budget ran out)
// says so on the row's line: its number is less precise than its contract asks.
std::string Progress::precision_note(const BenchmarkResultRow& row) {
  std::string out;
  for (const auto& [name, result] : {std::pair{"kernel-only", &row.kernel_only}, std::pair{"eager", &row.eager}}) {
    if (!*result) continue;
    for (const std::string& w : (*result)->warnings) {
      if (w.rfind("max time ", 0) == 0) out += fmt::format(" [{} precision not reached: {}]", name, w);
    }
  }
  return out;
}

void Progress::finished(const BenchmarkResultRow& row, const std::string& label) {
  ++done_;
  ++done_this_session_;
  if (terminal_) {
    redraw();
    return;
  }
  std::string what = std::string(to_string(row.benchmark_status));
  if (row.median_us) {
    what += fmt::format(" {} us", format_us(*row.median_us));
    if (row.eager_median_us && row.kernel_only) what += fmt::format(" (eager {} us)", format_us(*row.eager_median_us));
    // A number timed eagerly because the kernel-only measurement failed or was denied.
    if (row.capture_failure) what += fmt::format(" (eager only: kernel-only {})", to_string(row.capture_failure->kind));
  }
  if (row.status_reason) what += ": " + *row.status_reason;
  what += precision_note(row);
  out_ << fmt::format("[{}/{}] {} {}: {}\n", done_, total_, label, row.provider, what) << std::flush;
}

void Progress::note(const std::string& line) {
  if (terminal_) out_ << "\r\033[K";
  out_ << line << '\n';
  redraw();
}

void Progress::done() {
  if (terminal_) out_ << "\r\033[K" << std::flush;
}

}  // namespace caliber::runner
