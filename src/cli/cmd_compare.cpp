// caliber compare: the regression gate (docs/gate.md).
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "cli/command.h"
#include "compare/gate.h"
#include "compare/importers.h"
#include "compare/report_renderers.h"
#include "compare/row_matching.h"
#include "compare/input_identity.h"
#include "compare/thresholds.h"

namespace caliber::cli {
namespace {

using namespace caliber::compare;

struct CompareOptions {
  std::string baseline;
  std::string current;
  std::optional<std::string> thresholds;
  std::optional<std::string> arch;
  std::optional<std::string> assume_arch;
  bool fail_on_regression = false;
  bool strict = false;
  bool allow_caliber_mismatch = false;
  std::string format = "table";
  std::optional<std::string> out;
};

std::vector<CompareRow> load_rows(const std::string& file, const CompareOptions& o) {
  std::vector<CompareRow> rows = read_compare_input(file).rows;
  if (o.assume_arch) {
    for (CompareRow& row : rows) {
      if (row.arch.empty()) {
        row.arch = *o.assume_arch;
        row.arch_assumed = true;
      }
    }
  }
  if (o.arch) check_runner_trust(rows, file, *o.arch);
  return rows;
}

int run_compare(const CompareOptions& o) {
  // Everything the user typed is checked before a file is read or written.
  if (!o.thresholds && (o.fail_on_regression || o.strict)) {
    throw UsageError(fmt::format("{} needs --thresholds: only allowlisted rows can fail the gate",
                                 o.fail_on_regression ? "--fail-on-regression" : "--strict"));
  }
  if (o.out) require_writable_file(*o.out, "--out");
  if (o.assume_arch && o.assume_arch->empty()) throw UsageError("--assume-arch must not be empty");
  if (o.arch && o.arch->empty()) throw UsageError("--arch must not be empty");

  const Thresholds thresholds = o.thresholds ? read_thresholds(*o.thresholds) : Thresholds{};
  // The run identities before a single latency is read: runs of different caliber are refused
  // (exit 4) unless --allow-caliber-mismatch, which still prints every difference.
  const std::vector<std::string> identity_notes =
      check_input_identities(o.baseline, o.current, o.allow_caliber_mismatch, std::cerr);
  const std::vector<CompareRow> baseline = load_rows(o.baseline, o);
  const std::vector<CompareRow> current = load_rows(o.current, o);

  CompareReport report = evaluate_gate(baseline, current, thresholds, GateOptions{o.strict}, o.baseline, o.current);
  report.notes.insert(report.notes.begin(), identity_notes.begin(), identity_notes.end());
  auto render = [&](std::ostream& out) {
    if (o.format == "markdown") write_compare_markdown(out, report);
    else if (o.format == "json") write_compare_json(out, report);
    else if (o.format == "junit") write_compare_junit(out, report);
    else write_compare_table(out, report);
  };
  if (o.out) {
    write_file_atomically(*o.out, render);
    std::cout << gate_summary_line(report) << '\n';
  } else {
    std::ostringstream text;
    render(text);
    std::cout << text.str();
  }
  switch (report.result) {
    case GateResult::refused: return kExitCaliberMismatch;
    case GateResult::fail: return o.fail_on_regression ? kExitFailed : kExitOk;
    case GateResult::pass: return kExitOk;
  }
  return kExitOk;
}

const RegisterCommand registration{30, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = root.add_subcommand(
      "compare",
      "Compare two runs and gate regressions: relative AND absolute thresholds per architecture, "
      "contract check, Mann-Whitney U verdicts (docs/gate.md)");
  cmd->add_option("BASELINE", o->baseline,
                  "Baseline results: caliber JSON or CSV (caliber bench), a caliber run --out directory or its "
                  "benchmark_results.jsonl/.csv, nvbench JSON, google-benchmark JSON")
      ->required();
  cmd->add_option("CURRENT", o->current, "Current results, in any of the same formats")->required();
  cmd->add_option("--thresholds", o->thresholds,
                  "Thresholds file (versioned JSON): per architecture, the allowlist of gated rows");
  cmd->add_option("--arch", o->arch,
                  "Runner trust: every row of both files must report this architecture, else exit 2");
  cmd->add_option("--assume-arch", o->assume_arch,
                  "Architecture for rows whose format records none (google-benchmark JSON); a "
                  "declaration, not a report: --arch still refuses such rows");
  cmd->add_flag("--fail-on-regression", o->fail_on_regression,
                "Exit 1 when a gated row fails (a regression, or a fail-closed rule)");
  cmd->add_flag("--strict", o->strict, "A gated UNKNOWN verdict fails the gate too");
  cmd->add_flag("--allow-caliber-mismatch", o->allow_caliber_mismatch,
                "Compare even when the runs' identities differ in a caliber field, or one is missing (every "
                "difference is still printed)");
  cmd->add_option("--format", o->format, "table | markdown | json | junit")
      ->check(CLI::IsMember({"table", "markdown", "json", "junit"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write the output to this file (atomically) instead of stdout");
  cmd->footer(
      "Exit codes: 0 pass (or report only), 1 a gated row failed (with --fail-on-regression), "
      "2 usage, input or runner-trust error (no verdict printed), 4 comparison refused: the "
      "contract or the provider's config (record-vs-record) differs on a gated row (on any row "
      "without --thresholds), or the runs' identity differs or is missing (without "
      "--allow-caliber-mismatch).");
  cmd->callback([o, &exit_code] { exit_code = run_compare(*o); });
}};

}  // namespace
}  // namespace caliber::cli
