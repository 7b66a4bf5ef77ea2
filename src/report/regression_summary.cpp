// regression_summary.md: what moved between two runs of one frozen ledger.
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "report/benchmark_report.h"
#include "report/report_text.h"

namespace caliber {
namespace {

namespace rt = report_text;

std::string arrow(const std::string& a, const std::string& b) {
  return (a.empty() ? "-" : a) + " -> " + (b.empty() ? "-" : b);
}

}  // namespace

void write_regression_summary(std::ostream& out, const RegressionDiff& diff, const BenchmarkReport& after,
                              const std::string& before_results, const std::string& caliber_check) {
  const std::string kernel_list = after.comparison.kernel_names();
  out << fmt::format("# Regression summary: {}, candidate `{}`\n\n", kernel_list, after.comparison.candidate);
  out << fmt::format("- Before: `{}`; after: `{}`; ledger `{}` (frozen: both runs are read against it)\n",
                     before_results, after.sources.results, after.sources.shape_ledger);
  out << fmt::format("- Caliber: {}\n", caliber_check);
  out << fmt::format("- Metric: kernel-only speedup vs best available, per shape; a shape moved when after/before is "
                     "outside 1 +/- {}\n",
                     diff.threshold);
  out << fmt::format("- Regressed: {}; improved: {}; unchanged: {}; not comparable: {}\n\n", diff.count("regressed"),
                     diff.count("improved"), diff.count("unchanged"), diff.count("not comparable"));

  const std::vector<std::string> head = {"shape",        "dtype args", "stage", "model", "before", "after",
                                         "after/before", "verdict", "best baseline", "candidate us"};
  auto row_of = [](const ShapeMove& m) {
    return std::vector<std::string>{m.shape_id,
                                    shape_label_of_text(m.dtype, m.args),
                                    m.stage,
                                    m.model,
                                    rt::speedup(m.before_speedup),
                                    rt::speedup(m.after_speedup),
                                    m.ratio ? fmt::format("{:.3f}", *m.ratio) : "-",
                                    m.verdict,
                                    arrow(m.before_best, m.after_best),
                                    arrow(rt::us(m.before_candidate_us), rt::us(m.after_candidate_us))};
  };
  auto section = [&](const char* title, std::initializer_list<const char*> verdicts, const char* when_empty) {
    out << "## " << title << "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const char* verdict : verdicts) {
      for (const auto& m : diff.shapes) {
        if (m.verdict == verdict) rows.push_back(row_of(m));
      }
    }
    rt::markdown_table_or(out, head, rows, when_empty);
  };
  section("What moved", {"regressed", "improved"}, "Nothing moved.");
  section("Unchanged", {"unchanged"}, "None.");
  out << "## Not comparable\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : diff.shapes) {
    if (m.verdict == "not comparable") rows.push_back({m.shape_id, shape_label_of_text(m.dtype, m.args), m.stage, m.note});
  }
  if (rows.empty()) {
    out << "None.\n";
  } else {
    rt::markdown_table(out, {"shape", "dtype args", "stage", "why"}, rows);
  }
}

}  // namespace caliber
