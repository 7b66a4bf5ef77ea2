#include "screen/screen_protocol.h"

#include <filesystem>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "ab/ab_report.h"
#include "core/created_directories.h"
#include "core/atomic_file.h"
#include "caliber/caliber_check.h"
#include "core/tee_stream.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string fingerprint_column(const CellRun& c) {
  return c.fingerprint ? c.fingerprint->digest().substr(0, 12) : std::string();
}

std::string kernels_column(const CellRun& c) {
  return c.fingerprint ? std::to_string(c.fingerprint->code.size()) : std::string();
}

}  // namespace

const std::vector<std::string>& screen_tsv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"op",          "rows_a",        "rows_b",          "rows_failed_a",
                                  "rows_failed_b", "kernels_a",   "kernels_b",       "fingerprint_a",
                                  "fingerprint_b", "rc_a",        "rc_b",            "elapsed_a_s",
                                  "elapsed_b_s",   "verdict",     "delta_median_pct", "delta_min_pct",
                                  "delta_max_pct", "delta_label"};
    // The caliber columns come from the one definition (identity_fields), never restated here.
    for (const std::string& f : caliber_field_names()) c.push_back(f);
    return c;
  }();
  return columns;
}

namespace {

// The op's verdict and, when the verdict allows one, its delta (B against A over the shapes
// measured on both sides).
void report_op(std::ostream& out, ScreenOpResult& r) {
  out << fmt::format("{}: {} -- {}\n", r.op, to_string(r.decision.verdict), r.decision.note);
  if (!r.decision.print_delta) {
    out << fmt::format("{}: no speedup is printed for {}\n", r.op, to_string(r.decision.verdict));
    return;
  }
  r.delta = pair_delta(r.a.outcome.results, r.b.outcome.results);
  if (r.delta.shapes > 0) {
    out << fmt::format("{}: B vs A {} [{} .. {}] over {} shapes -- {}\n", r.op, format_pct(r.delta.median_pct),
                       format_pct(r.delta.min_pct), format_pct(r.delta.max_pct), r.delta.shapes,
                       r.decision.delta_label);
  } else {
    out << fmt::format("{}: no shape was measured on both sides: no delta\n", r.op);
  }
}

// The op's screen.tsv row (screen_tsv_columns).
std::vector<std::string> screen_tsv_row(const ScreenOpResult& r) {
  const bool delta = r.decision.print_delta && r.delta.shapes > 0;
  std::vector<std::string> row = {
      r.op,
      std::to_string(r.a.outcome.results.rows_ok),
      std::to_string(r.b.outcome.results.rows_ok),
      std::to_string(r.a.outcome.results.rows_failed),
      std::to_string(r.b.outcome.results.rows_failed),
      kernels_column(r.a),
      kernels_column(r.b),
      fingerprint_column(r.a),
      fingerprint_column(r.b),
      std::to_string(r.a.outcome.exit_code),
      std::to_string(r.b.outcome.exit_code),
      fmt::format("{:.1f}", r.a.elapsed_s),
      fmt::format("{:.1f}", r.b.elapsed_s),
      to_string(r.decision.verdict),
      delta ? fmt::format("{:.4f}", r.delta.median_pct) : "",
      delta ? fmt::format("{:.4f}", r.delta.min_pct) : "",
      delta ? fmt::format("{:.4f}", r.delta.max_pct) : "",
      delta ? r.decision.delta_label : ""};
  const std::optional<RunIdentity>& id = r.a.identity ? r.a.identity : r.b.identity;
  const std::vector<std::string> cal =
      id ? caliber_field_values(*id) : std::vector<std::string>(caliber_field_names().size());
  row.insert(row.end(), cal.begin(), cal.end());
  return row;
}

}  // namespace

ScreenRunResult run_screen(const AbPlan& plan_in, CellRunner& runner, const CellResultsReader& reader,
                           std::ostream& report, std::ostream& progress) {
  AbPlan plan = plan_in;
  plan.rounds = 1;
  plan.order = RoundOrder::alternate;  // round 1: A then B
  std::vector<std::vector<CellSpec>> planned;
  for (const std::string& op : plan.ops) planned.push_back(plan_op_cells(plan, op));
  std::error_code ec;
  create_output_directories(plan.out_dir, ec);
  const bool identical = side_signature(plan.a) == side_signature(plan.b);
  write_file_atomically((fs::path(plan.out_dir) / "screen_plan.json").string(),
                        [&](std::ostream& o) { o << ab_plan_json(plan, identical).dump(2) << '\n'; });
  StatusTsv status((fs::path(plan.out_dir) / "status.tsv").string());
  LineAppender screen_tsv((fs::path(plan.out_dir) / "screen.tsv").string());
  screen_tsv.append(tsv_line(screen_tsv_columns()));
  std::ostringstream copy;
  TeeStream out(report, copy);
  const auto write_report = [&] {
    write_file_atomically((fs::path(plan.out_dir) / "screen_report.txt").string(), [&](std::ostream& o) { o << copy.str(); });
  };
  ScreenRunResult result;
  try {
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
      ScreenOpResult r;
      r.op = plan.ops[i];
      for (const CellSpec& spec : planned[i]) {
        (spec.side == 'A' ? r.a : r.b) = run_logged_cell(spec, 1, runner, reader, status, progress, "screen");
      }
      r.decision = screen_verdict({r.a.outcome, r.a.fingerprint}, {r.b.outcome, r.b.fingerprint});
      // Identities are compared before any latency of the pair is: a pair that measured nothing
      // has no latency to protect.
      if (r.decision.verdict != ScreenVerdict::no_rows) {
        check_cells_comparable(r.a, r.b, plan.allow_caliber_mismatch, out, "A", "B");
      }
      report_op(out, r);
      screen_tsv.append(tsv_line(screen_tsv_row(r)));
      if (r.decision.verdict == ScreenVerdict::no_rows &&
          (r.a.outcome.state != CellState::ok || r.b.outcome.state != CellState::ok)) {
        result.exit_code = 1;
      }
      result.ops.push_back(std::move(r));
    }
    out << "screen: only CODE_CHANGED ops are worth a multi-round A/B (caliber ab --rounds 6)\n";
  } catch (...) {
    write_report();
    throw;
  }
  write_report();
  return result;
}

}  // namespace caliber
