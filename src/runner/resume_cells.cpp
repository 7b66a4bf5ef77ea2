#include "runner/resume_cells.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "core/atomic_file.h"
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
  std::vector<BenchmarkResultRow> rows;
  std::vector<std::string> lines;  // each row's line as written
  for_each_benchmark_result(results_file, [&](std::string_view text, BenchmarkResultRow row, long) {
    lines.emplace_back(text);
    rows.push_back(std::move(row));
  });
  std::unordered_set<std::string> already;
  if (std::filesystem::exists(attempts_file)) {
    std::istringstream in(read_text_file(attempts_file));
    std::string line;
    while (std::getline(in, line)) already.insert(line);
  }
  std::vector<std::string> keep;
  std::size_t moved = 0;
  {
    LineAppender attempts(attempts_file);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!cells.count({rows[i].shape_id, rows[i].provider})) {
        keep.push_back(lines[i]);
        continue;
      }
      if (!already.count(lines[i])) attempts.append(lines[i]);
      ++moved;
    }
  }
  if (moved == 0) return 0;
  write_file_atomically(results_file, [&](std::ostream& out) {
    for (const auto& l : keep) out << l << '\n';
  });
  return moved;
}

}  // namespace caliber::runner
