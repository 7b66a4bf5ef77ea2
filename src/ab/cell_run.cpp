#include "ab/cell_run.h"

#include <filesystem>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

class ProcessCellRunner final : public CellRunner {
 public:
  SubprocessResult run(const CellSpec& cell, const std::string& log_path) override {
    SubprocessOptions o;
    o.argv = {"/bin/sh", "-c", cell.command};
    o.env = cell.env;
    o.stdout_path = log_path;
    o.timeout_s = cell.timeout_s;
    o.kill_after_s = cell.kill_after_s;
    return run_subprocess(o);
  }
};

// The first line of the cell's log containing `marker` (e.g. PREFLIGHT_FAILED), or "".
std::string log_line_with(const std::string& log_path, const std::string& marker) {
  std::ifstream in(log_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(marker) != std::string::npos) return line;
  }
  return {};
}

const char* state_name(CellState s) {
  switch (s) {
    case CellState::ok: return "ok";
    case CellState::failed: return "failed";
    case CellState::timed_out: return "TIMEOUT";
    case CellState::refused: return "refused";
    case CellState::not_run: return "not_run";
  }
  return "?";
}

}  // namespace

std::string tsv_field(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string tsv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line.push_back('\t');
    line.append(tsv_field(fields[i]));
  }
  return line;
}

CellRun run_logged_cell(const CellSpec& spec, int rounds, CellRunner& runner, const CellResultsReader& reader,
                        StatusTsv& status, std::ostream& progress, const std::string& tag) {
  const std::string where = fmt::format("[{}] {} round {}/{} side {}", tag, spec.op, spec.round, rounds, spec.side);
  progress << where << ": running\n";
  progress.flush();
  CellRun c = run_cell(spec, runner, reader);
  status.append(c);
  progress << fmt::format("{}: rc {}, {} ok / {} failed rows, {:.1f} s{}\n", where, c.outcome.exit_code,
                          c.outcome.results.rows_ok, c.outcome.results.rows_failed, c.elapsed_s,
                          c.outcome.note.empty() ? "" : " -- " + c.outcome.note);
  return c;
}

CellRunner& process_cell_runner() {
  static ProcessCellRunner runner;
  return runner;
}

CellRun run_cell(const CellSpec& spec, CellRunner& runner, const CellResultsReader& reader) {
  CellRun c;
  c.spec = spec;
  std::error_code ec;
  fs::create_directories(spec.dir, ec);
  if (ec) throw Error(fmt::format("cannot create cell directory {}: {}", spec.dir, ec.message()));
  const std::string log = (fs::path(spec.dir) / kCellLogFileName).string();
  const SubprocessResult r = runner.run(spec, log);
  c.elapsed_s = r.elapsed_s;
  CellOutcome& o = c.outcome;
  o.exit_code = r.exit_code;
  if (r.timed_out || is_timeout_exit(r.exit_code)) {
    o.state = CellState::timed_out;
    o.note = r.timed_out ? fmt::format("TIMEOUT: stopped at the {:g} s cell limit (a cost problem, not a verdict)", spec.timeout_s)
                         : fmt::format("TIMEOUT: the command exited {} (a timeout wrapper or the OOM killer)", r.exit_code);
    return c;
  }
  if (r.exit_code == 3 || r.exit_code == 4) {
    o.state = CellState::refused;
    const std::string line = log_line_with(log, r.exit_code == 3 ? "PREFLIGHT_FAILED" : "[caliber]");
    o.note = line.empty() ? fmt::format("refused with exit {} (see {})", r.exit_code, log) : line;
    return c;
  }
  if (r.exit_code != 0) {
    o.state = CellState::failed;
    o.note = r.exit_code == 127
                 ? fmt::format("exit 127: a program of the cell command was not found or could not be executed (see {})", log)
                 : fmt::format("exit {} (see {})", r.exit_code, log);
    return c;
  }
  c.results_file = reader.find_results_file(spec.dir);
  if (c.results_file.empty()) {
    o.state = CellState::failed;
    o.note = fmt::format("exit 0 but no results file in {}", spec.dir);
    return c;
  }
  try {
    o.results = reader.read(c.results_file);
    c.identity = find_run_identity(c.results_file, &c.identity_missing);
    const fs::path fp = fs::path(spec.dir) / kCodeFingerprintFileName;
    if (fs::exists(fp, ec)) c.fingerprint = read_code_fingerprint(fp.string());
  } catch (const InputError& e) {
    o.state = CellState::failed;
    o.note = fmt::format("unreadable output: {}", e.what());
    return c;
  }
  o.state = CellState::ok;
  return c;
}

StatusTsv::StatusTsv(const std::string& path, bool append) : path_(path) {
  if (!append) LineAppender(path).append(header());
}

const char* StatusTsv::header() {
  return "round\tside\top\trc\telapsed_s\trows_ok\trows_failed\trows_unstable\trows_warned\tstate\tnote";
}

void StatusTsv::append(const CellRun& c) {
  const CellResults& r = c.outcome.results;
  LineAppender(path_).append(tsv_line({std::to_string(c.spec.round), std::string(1, c.spec.side), c.spec.op,
                                       std::to_string(c.outcome.exit_code), fmt::format("{:.2f}", c.elapsed_s),
                                       std::to_string(r.rows_ok), std::to_string(r.rows_failed),
                                       std::to_string(r.rows_unstable), std::to_string(r.rows_warned),
                                       state_name(c.outcome.state), c.outcome.note}));
}

}  // namespace caliber
