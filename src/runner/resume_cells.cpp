#include "runner/resume_cells.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/input_file.h"
#include "caliber/errors.h"
#include "core/json_fields.h"
#include "io/benchmark_results_json.h"

namespace caliber::runner {

bool cut_torn_tail(const std::string& file) {
  // Only the last line is read (a results file may be larger than any text caliber reads whole).
  off_t keep = -1;
  bool torn = false;
  std::uint64_t at = 0;
  for_each_text_line(file, [&](std::string_view line, long, bool terminated) {
    if (!terminated) {
      torn = true;
      keep = static_cast<off_t>(at);
    }
    at += line.size() + 1;
  });
  if (!torn) return false;
  if (::truncate(file.c_str(), keep) != 0) throw Error(fmt::format("{}: cannot cut the torn last row", file));
  return true;
}

std::set<CellKey> read_rerun_cells(const std::string& file) {
  std::istringstream in(read_text_file(file));
  std::set<CellKey> cells;
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || tab + 1 == line.size() ||
        line.find('\t', tab + 1) != std::string::npos) {
      throw InputError(file, number, "cell", "expected <shape_id><TAB><provider>");
    }
    cells.insert({line.substr(0, tab), line.substr(tab + 1)});
  }
  return cells;
}

void write_rerun_cells(const std::string& file, const std::set<CellKey>& cells) {
  write_file_atomically(file, [&](std::ostream& out) {
    out << "# cells to run again (caliber run --rerun-cells): shape_id<TAB>provider\n";
    for (const auto& [shape, provider] : cells) out << shape << '\t' << provider << '\n';
  });
}

void check_rerun_cells(const std::string& results_file, const std::set<CellKey>& cells, const std::string& list_file) {
  for_each_benchmark_result(results_file, [&](std::string_view, const BenchmarkResultRow& r, long) {
    if (!cells.count({r.shape_id, r.provider}) || r.benchmark_status == BenchmarkStatus::failed) return;
    throw InputError(list_file, 0, "cell",
                     fmt::format("{} / {} has status {}: only failed cells are run again (re-running a result "
                                 "until it reads better would promote it)",
                                 r.shape_id, r.provider, to_string(r.benchmark_status)));
  });
}

std::size_t supersede_rows(const std::string& results_file, const std::string& attempts_file,
                           const std::set<CellKey>& cells) {
  if (cells.empty() || !std::filesystem::exists(results_file)) return 0;
  std::unordered_set<std::string> already;  // lines the attempts file holds (a resume after a crash)
  if (std::filesystem::exists(attempts_file)) {
    for_each_text_line(attempts_file, [&](std::string_view line, long, bool) { already.emplace(line); });
  }
  // A row at a time: the kept lines into the results file's replacement, the superseded ones
  // appended to the attempts file first, so that a crash loses neither.
  AtomicFiles rewritten;
  std::ostream& keep = rewritten.open(results_file);
  std::size_t moved = 0;
  {
    LineAppender attempts(attempts_file);
    for_each_benchmark_result(results_file, [&](std::string_view text, const BenchmarkResultRow& row, long) {
      if (!cells.count({row.shape_id, row.provider})) {
        keep << text << '\n';
        return;
      }
      if (!already.count(std::string(text))) attempts.append(std::string(text));
      ++moved;
    });
  }
  if (moved == 0) return 0;  // abandoned: the results file stays as it was
  rewritten.commit();
  return moved;
}

}  // namespace caliber::runner
