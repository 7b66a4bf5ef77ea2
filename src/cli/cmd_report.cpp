// caliber report: benchmark_summary.md, coverage_matrix.md and report.html from a shape ledger and
// a multi-shape results file; with --against, regression_summary.md and regressions.jsonl.
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "core/created_directories.h"
#include "core/atomic_file.h"
#include "report/benchmark_report.h"
#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "cli/command.h"
#include "core/json_fields.h"
#include "core/jsonl.h"
#include "ops/op_catalog.h"
#include "io/benchmark_results_json.h"
#include "io/device_ceilings_file.h"
#include "io/shape_ledger_json.h"

namespace caliber::cli {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string shape_ledger;
  std::string results;
  std::string out;
  std::string candidate;
  std::optional<std::string> against;
  std::optional<std::string> ceilings;
  std::optional<std::string> profiles;
  std::optional<std::string> baseline_matrix;
  std::vector<std::string> op_descriptions;  // ops of your own in the ledger (docs/user-ops.md)
  double move_threshold = kDefaultMoveThreshold;
  bool allow_caliber_mismatch = false;
};

struct LoadedResults {
  std::vector<BenchmarkResultRow> rows;
  std::vector<long> lines;  // of each row, for errors that point at it
};

// Read a line at a time: a results file of any size is held as rows, never as text.
LoadedResults load_results(const std::string& file) {
  LoadedResults r;
  for_each_benchmark_result(file, [&](std::string_view, BenchmarkResultRow row, long line) {
    r.rows.push_back(std::move(row));
    r.lines.push_back(line);
  });
  return r;
}

std::string sibling(const std::string& file, const std::string& name) {
  const fs::path dir = fs::path(file).parent_path();
  return dir.empty() ? name : (dir / name).string();
}

// The caliber line of regression_summary.md: what was checked, and every difference the user
// chose to compare across (--allow-caliber-mismatch), so that the file never hides one.
std::string regression_caliber_line(const std::string& before, const std::string& after,
                                    const CaliberComparison& identities, const CaliberComparison& rows) {
  std::string line;
  const std::size_t n = identities.differences.size() + rows.differences.size();
  if (n == 0) {
    line = fmt::format("the same in every caliber field (`{}`, `{}`)", run_identity_path_for(before),
                       run_identity_path_for(after));
  } else {
    line = fmt::format("**DIFFERENT** in {} field(s), compared anyway (--allow-caliber-mismatch):", n);
    std::string sep = " ";
    for (const CaliberDifference& d : identities.differences) {
      line += fmt::format("{}{}: A={}, B={}", sep, d.field, d.a, d.b);
      sep = "; ";
    }
    for (const CaliberDifference& d : rows.differences) {
      line += fmt::format("{}{}: run_identity.json={}, row={}", sep, d.field, d.a, d.b);
      sep = "; ";
    }
  }
  for (const std::string& h : identities.hazards) line += fmt::format("; warning: {}", h);
  return line;
}

void check_options(const ReportOptions& o) {
  if (o.candidate.empty()) throw UsageError("--candidate must name a provider");
  if (!(o.move_threshold > 0 && o.move_threshold < 1)) {
    throw UsageError(fmt::format("--move-threshold must be in (0, 1) (got {})", o.move_threshold));
  }
}

// The report's inputs besides the ledger and results, and the device ceilings (--ceilings, else
// the default ceilings file when it exists; none otherwise).
ReportSources report_sources(const ReportOptions& o, std::vector<DeviceCeilings>& ceilings) {
  ReportSources sources;
  sources.shape_ledger = o.shape_ledger;
  sources.results = o.results;
  sources.profiles = o.profiles.value_or(sibling(o.results, "profiles"));
  sources.baseline_matrix = o.baseline_matrix.value_or(sibling(o.results, "baseline_matrix.yaml"));
  if (o.ceilings) {
    sources.ceilings = *o.ceilings;
    ceilings = read_device_ceilings(*o.ceilings);
  } else if (const std::string d = default_ceilings_path(); fs::exists(d)) {
    sources.ceilings = d;
    ceilings = read_device_ceilings(d);
  }
  return sources;
}

// The report's files, each rendered straight into its temporary (a report of any size in bounded
// memory): all of them take their place at commit(), or none does (bad input found halfway, a
// full disk).
class RenderedFiles {
 public:
  explicit RenderedFiles(std::string dir) : dir_(std::move(dir)) {}
  template <typename Writer>
  void render(const std::string& name, Writer writer) {
    writer(files_.open((fs::path(dir_) / name).string()));
    names_.push_back(name);
  }
  void commit() { files_.commit(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::string dir_;
  AtomicFiles files_;
  std::vector<std::string> names_;
};

// --against: what the identities cannot know, that each file's rows were measured where its
// identity says. Checked while the rows are still at hand (the report then keeps them).
CaliberComparison rows_against_identities(const ReportOptions& o, const LoadedResults& before,
                                          const LoadedResults& results) {
  CaliberComparison rows;
  for (const auto& [file, loaded] : {std::pair{*o.against, &before}, std::pair{o.results, &results}}) {
    std::string why_missing;
    if (const auto identity = find_run_identity(file, &why_missing)) {
      for (auto& d : rows_unlike_identity(loaded->rows, loaded->lines, *identity, file)) {
        rows.differences.push_back(std::move(d));
      }
    }
  }
  require_same_caliber(rows, o.allow_caliber_mismatch, std::cerr, "run_identity.json", "row");
  return rows;
}

// --against: the older run (`before`, already read and checked) against this one: renders
// regression_summary.md and regressions.jsonl.
RegressionDiff render_regressions(const ReportOptions& o, LoadedResults before, const std::vector<ShapeRow>& ledger,
                                  const BenchmarkReport& report, const CaliberComparison& identities,
                                  const CaliberComparison& rows, RenderedFiles& out) {
  const ComparisonSet old =
      compare_shapes(ledger, std::move(before.rows), o.candidate, *o.against, before.lines);
  RegressionDiff diff = diff_runs(old, report.comparison, o.move_threshold);
  const std::string caliber_line = regression_caliber_line(*o.against, o.results, identities, rows);
  out.render("regression_summary.md",
             [&](std::ostream& s) { write_regression_summary(s, diff, report, *o.against, caliber_line); });
  out.render("regressions.jsonl", [&](std::ostream& s) {
    for (const auto& m : diff.shapes) s << to_json(m).dump() << '\n';
  });
  return diff;
}

int run_report(const ReportOptions& o) {
  check_options(o);
  // The output directory can take the files (a read-only tree is a usage error, before any
  // input is read).
  require_writable_directory(o.out, "--out");
  // Every input is read and every output rendered into its temporary before any file takes its
  // place: bad input leaves no partial report behind.
  // --against: the two runs' identities are compared before a single latency is parsed
  // (A = the older run, B = this one); a caliber difference refuses with exit 4.
  CaliberComparison identities;
  if (o.against) identities = check_runs_comparable(*o.against, o.results, o.allow_caliber_mismatch, std::cerr);
  LoadedResults results = load_results(o.results);
  std::optional<LoadedResults> before =
      o.against ? std::optional<LoadedResults>(load_results(*o.against)) : std::nullopt;
  const CaliberComparison rows_checked = before ? rows_against_identities(o, *before, results) : CaliberComparison{};
  for (const std::string& file : o.op_descriptions) ops::register_op_description(file);
  const std::vector<ShapeRow> ledger = read_shape_ledger(o.shape_ledger);
  std::vector<DeviceCeilings> ceilings;
  const ReportSources sources = report_sources(o, ceilings);
  const BenchmarkReport report =
      build_benchmark_report(ledger, std::move(results.rows), o.candidate, ceilings, sources, results.lines);

  create_output_directories(o.out, "--out");
  RenderedFiles rendered(o.out);
  rendered.render("benchmark_summary.md", [&](std::ostream& s) { write_benchmark_summary(s, report); });
  rendered.render("coverage_matrix.md", [&](std::ostream& s) { write_coverage_matrix(s, report); });
  rendered.render("report.html", [&](std::ostream& s) { write_html_report(s, report); });
  std::optional<RegressionDiff> diff;
  if (before) diff = render_regressions(o, std::move(*before), ledger, report, identities, rows_checked, rendered);

  rendered.commit();
  write_results_table_text(std::cout, report.table);
  std::cout << fmt::format("decision: {} (rule {}): {}\n", to_string(report.decision.verdict), report.decision.rule,
                           report.decision.reason);
  if (diff) {
    std::cout << fmt::format("regression tier: {} regressed, {} improved, {} unchanged, {} not comparable\n",
                             diff->count("regressed"), diff->count("improved"), diff->count("unchanged"),
                             diff->count("not comparable"));
  }
  for (const std::string& name : rendered.names()) std::cout << "wrote " << (fs::path(o.out) / name).string() << '\n';
  return kExitOk;
}

const RegisterCommand registration{40, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = root.add_subcommand("report", "Summary, coverage matrix and HTML report of a multi-shape run");
  cmd->add_option("--shape-ledger", o->shape_ledger, "The shape ledger the run measured (shape_ledger.jsonl)")
      ->required();
  cmd->add_option("--results", o->results, "The run's results (benchmark_results.jsonl)")->required();
  cmd->add_option("--out", o->out, "Directory for benchmark_summary.md, coverage_matrix.md, report.html")->required();
  cmd->add_option("--candidate", o->candidate, "The provider under judgement (e.g. caliber)")->required();
  cmd->add_option("--against", o->against,
                  "Older results of the same frozen ledger: also write regression_summary.md and regressions.jsonl");
  cmd->add_option("--ceilings", o->ceilings,
                  "Device ceilings file from caliber calibrate (default: $CALIBER_CEILINGS, else "
                  "~/.cache/caliber/device_ceilings.json when it exists)");
  cmd->add_option("--profiles", o->profiles, "Directory of caliber profile diagnoses (default: <results dir>/profiles)");
  cmd->add_option("--op-description", o->op_descriptions,
                  "The description of an op of your own that the ledger lists (repeatable; docs/user-ops.md)");
  cmd->add_option("--baseline-matrix", o->baseline_matrix,
                  "Baseline matrix named in the printed profiler commands (default: <results dir>/baseline_matrix.yaml)");
  cmd->add_option("--move-threshold", o->move_threshold,
                  "--against: a shape moved when its speedup changed by more than this fraction")
      ->capture_default_str();
  cmd->add_flag("--allow-caliber-mismatch", o->allow_caliber_mismatch,
                "--against: compare runs of different caliber anyway (every difference is still printed, and "
                "written into regression_summary.md)");
  cmd->callback([o, &exit_code] { exit_code = run_report(*o); });
}};

}  // namespace
}  // namespace caliber::cli
