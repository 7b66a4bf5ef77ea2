// coverage_matrix.md: every shape x provider cell, so nothing silently vanishes.
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "report/benchmark_report.h"
#include "report/report_text.h"

namespace caliber {
namespace {

namespace rt = report_text;

// The grid's text of a cell: the status, "ok (unstable)" for an ok row excluded as unstable, and
// "missing" when the run has no row.
std::string cell_text(const ProviderCell& c) {
  if (!c.row) return "missing";
  if (c.row->benchmark_status == BenchmarkStatus::ok && !c.usable()) return "ok (unstable)";
  return std::string(to_string(c.row->benchmark_status));
}

std::string status_of(const ProviderCell& c) {
  return c.row ? std::string(to_string(c.row->benchmark_status)) : "missing";
}

}  // namespace

void write_coverage_matrix(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  const std::string kernel_list = set.kernel_names();
  std::vector<std::string> providers = {set.candidate};
  providers.insert(providers.end(), set.baselines.begin(), set.baselines.end());
  for (const NotBaseline& n : set.not_baselines) providers.push_back(n.provider);
  std::vector<std::string> labels = {set.candidate + " (candidate)"};
  for (std::size_t p = 1; p < providers.size(); ++p) labels.push_back(set.provider_label(providers[p]));

  out << fmt::format("# Coverage matrix: {}, candidate `{}`\n\n", kernel_list, set.candidate);
  out << fmt::format("Every shape of `{}` ({} shapes) x every provider of `{}` ({} providers): {} cells. A cell "
                     "without a row is `missing`; `ok (unstable)` is an ok row excluded from speedups because "
                     "p90/p10 > 1.2.\n\n",
                     r.sources.shape_ledger, set.shapes.size(), r.sources.results, providers.size(),
                     set.shapes.size() * providers.size());

  std::vector<std::string> head = {"shape", "model", "stage", "dtype args"};
  head.insert(head.end(), labels.begin(), labels.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : set.shapes) {
    std::vector<std::string> row = {s.shape.shape_id, s.shape.model.value_or("-"), std::string(to_string(s.shape.stage)),
                                    s.label()};
    for (const ProviderCell* c : s.cells()) row.push_back(cell_text(*c));
    rows.push_back(row);
  }
  rt::markdown_table(out, head, rows);

  out << "\n## Counts per status\n\n";
  std::vector<std::string> statuses;
  for (BenchmarkStatus st : all_benchmark_statuses()) statuses.emplace_back(to_string(st));
  statuses.push_back("missing");
  std::vector<std::string> count_head = {"status"};
  count_head.insert(count_head.end(), labels.begin(), labels.end());
  count_head.push_back("total");
  rows.clear();
  std::size_t unstable = 0;
  for (const auto& status : statuses) {
    std::vector<std::string> row = {status};
    std::size_t total = 0;
    for (std::size_t p = 0; p < providers.size(); ++p) {
      std::size_t n = 0;
      for (const auto& s : set.shapes) {
        n += status_of(*s.cells()[p]) == status;
      }
      total += n;
      row.push_back(std::to_string(n));
    }
    row.push_back(std::to_string(total));
    rows.push_back(row);
  }
  for (const auto& s : set.shapes) {
    for (const ProviderCell* c : s.cells()) unstable += cell_text(*c) == "ok (unstable)";
  }
  rt::markdown_table(out, count_head, rows);
  out << fmt::format("\nOk rows excluded as unstable: {}.\n", unstable);

  out << "\n## Cells that are not ok\n\n";
  rows.clear();
  for (const auto& s : set.shapes) {
    auto add = [&](const ProviderCell& c) {
      if (c.row && c.row->benchmark_status == BenchmarkStatus::ok && c.usable()) return;
      rows.push_back({s.shape.shape_id, s.label(), set.provider_label(c.provider), cell_text(c),
                      !c.row ? "no row in the results"
                      : c.row->benchmark_status != BenchmarkStatus::ok ? row_reason(*c.row)
                                                                       : c.exclusion});
    };
    for (const ProviderCell* c : s.cells()) add(*c);
  }
  if (rows.empty()) {
    out << "None.\n";
  } else {
    rt::markdown_table(out, {"shape", "dtype args", "provider", "status", "reason"}, rows);
  }
}

}  // namespace caliber
