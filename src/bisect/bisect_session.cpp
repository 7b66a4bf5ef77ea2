#include "bisect/bisect_session.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "bisect/bisect_out_directory.h"
#include "bisect/bisect_record.h"
#include "bisect/bisect_search.h"
#include "bisect/git_command.h"
#include "bisect/regressed_rows.h"
#include "caliber/errors.h"
#include "compare/importers.h"
#include "compare/input_identity.h"
#include "compare/report_renderers.h"
#include "compare/thresholds.h"
#include "core/one_line.h"

namespace caliber::bisect {
namespace {

namespace fs = std::filesystem;
using compare::CompareReport;
using compare::CompareRow;

// What the search works with, fixed before it starts, and what it found so far.
struct Bisection {
  explicit Bisection(const BisectOptions& o) : options(o) {}
  const BisectOptions& options;
  compare::Thresholds thresholds;
  std::string repo;
  std::string out_root;
  std::vector<CommitInfo> commits;  // good..bad, oldest first; the last one is bad
  std::unique_ptr<BisectWorktree> worktree;
  CommitRun good_run;
  std::vector<std::string> keys;     // the base keys of the regressed rows
  std::vector<CompareRow> good_rows;  // the good revision's regressed rows
  // By index into `commits`, those whose results were read; the bad revision's from the preflight.
  std::map<std::size_t, CommitRun> runs;
  std::map<std::size_t, TestedCommit> tested;
  BisectRecord record;
};

// The rows of a results input; a row whose format records no architecture gets --assume-arch,
// as `caliber compare --assume-arch` does.
std::vector<CompareRow> load_rows(const std::string& input, const std::optional<std::string>& assume_arch) {
  std::vector<CompareRow> rows = compare::read_compare_input(input).rows;
  for (CompareRow& row : rows) {
    if (assume_arch && row.arch.empty()) {
      row.arch = *assume_arch;
      row.arch_assumed = true;
    }
  }
  return rows;
}

// The gate's comparison of two results, restricted to the regressed rows.
CompareReport compare_regressed(const Bisection& b, const std::vector<CompareRow>& base, const std::string& base_input,
                                const std::vector<CompareRow>& cur, const std::string& cur_input) {
  return compare::evaluate_gate(rows_among(base, b.keys), rows_among(cur, b.keys), b.thresholds,
                                compare::GateOptions{}, base_input, cur_input);
}

// The revisions, their ancestry and the commits between them; nothing is built yet.
void resolve_history(Bisection& b) {
  b.repo = repository_root(b.options.repo);
  b.record.repo = b.repo;
  b.record.good.commit = resolve_commit(b.repo, b.options.good, "--good");
  b.record.bad.commit = resolve_commit(b.repo, b.options.bad, "--bad");
  const CommitInfo& good = b.record.good.commit;
  const CommitInfo& bad = b.record.bad.commit;
  if (good.sha == bad.sha) throw UsageError(fmt::format("--good and --bad are the same commit {}", good.short_sha()));
  if (!is_ancestor(b.repo, good.sha, bad.sha)) {
    throw UsageError(fmt::format("--good {} is not an ancestor of --bad {}: there is no history from good to bad "
                                 "to search", good.short_sha(), bad.short_sha()));
  }
  b.commits = commits_between(b.repo, good.sha, bad.sha);
  if (b.commits.empty() || b.commits.back().sha != bad.sha) {
    throw Error(fmt::format("git log --ancestry-path {}..{} in {}: the list does not end at the bad commit",
                            good.short_sha(), bad.short_sha(), b.repo));
  }
}

// Builds and runs the good or the bad revision; its failure is the bisect's.
CommitRun run_endpoint(Bisection& b, const CommitInfo& commit, const char* role) {
  try {
    return build_and_run(*b.worktree, commit, b.options.commands, b.out_root);
  } catch (const CommitRunError& e) {
    throw CommitRunError(fmt::format("preflight: {} {}", role, e.what()));
  }
}

// Good and bad built, run and compared: the rows that regressed are the ones the search follows.
void preflight(Bisection& b, std::ostream& out) {
  TestedCommit& good = b.record.good;
  TestedCommit& bad = b.record.bad;
  b.good_run = run_endpoint(b, good.commit, "good");
  const CommitRun bad_run = run_endpoint(b, bad.commit, "bad");
  good.results = b.good_run.input;
  bad.results = bad_run.input;
  // The identities before a latency is read, as caliber compare does (exit 4 unless allowed).
  for (const std::string& note : compare::check_input_identities(good.results, bad.results,
                                                                 b.options.allow_caliber_mismatch, std::cerr)) {
    out << "note: " << note << '\n';
  }
  const std::vector<CompareRow> good_rows = load_rows(good.results, b.options.assume_arch);
  const std::vector<CompareRow> bad_rows = load_rows(bad.results, b.options.assume_arch);
  const CompareReport report = compare::evaluate_gate(good_rows, bad_rows, b.thresholds, compare::GateOptions{},
                                                      good.results, bad.results);
  b.keys = regressed_keys(report);
  if (b.keys.empty()) {
    throw Error(fmt::format("preflight: good {} and bad {} do not differ: no row regressed ({})",
                            good.commit.short_sha(), bad.commit.short_sha(), verdict_counts(report)));
  }
  b.good_rows = rows_among(good_rows, b.keys);
  const CompareReport regressed = compare_regressed(b, good_rows, good.results, bad_rows, bad.results);
  for (const auto& row : regressed.rows) b.record.regressed_rows.push_back(row.label);
  good.verdict = CommitVerdict::good;
  bad.verdict = CommitVerdict::bad;
  bad.detail = classify_commit(regressed).detail;
  b.runs[b.commits.size() - 1] = bad_run;
  b.tested[b.commits.size() - 1] = bad;
  out << fmt::format("preflight: {} of {} rows regressed from good {} to bad {}: {}\n", b.keys.size(),
                     report.rows.size(), good.commit.short_sha(), bad.commit.short_sha(), bad.detail);
  out.flush();
}

// Builds, runs and classifies one commit between good and bad. A failed build or run, or results
// that cannot be read, make it a skip: the search steps around it.
TestedCommit test_commit(Bisection& b, std::size_t index) {
  TestedCommit t;
  t.commit = b.commits[index];
  CommitRun run;
  try {
    run = build_and_run(*b.worktree, t.commit, b.options.commands, b.out_root);
  } catch (const CommitRunError& e) {
    t.verdict = CommitVerdict::skip;
    t.detail = e.what();
    return t;
  }
  t.results = run.input;
  compare::check_input_identities(b.good_run.input, run.input, b.options.allow_caliber_mismatch, std::cerr);
  std::vector<CompareRow> rows;
  try {
    rows = load_rows(run.input, b.options.assume_arch);
  } catch (const InputError& e) {
    t.verdict = CommitVerdict::skip;
    t.detail = fmt::format("commit {}: its results cannot be read: {}", t.commit.short_sha(), e.what());
    return t;
  }
  const CommitClassification c = classify_commit(compare_regressed(b, b.good_rows, b.good_run.input, rows, run.input));
  t.verdict = c.verdict;
  t.detail = c.detail;
  b.runs[index] = run;
  return t;
}

// The search, one line per tested commit.
SearchOutcome search(Bisection& b, std::ostream& out) {
  const std::size_t n = b.commits.size();
  const auto steps = static_cast<long>(std::ceil(std::log2(static_cast<double>(n))));
  out << fmt::format("bisect: {} commit{} after good {}, the last one bad: about {} step{}\n", n, n == 1 ? "" : "s",
                     b.record.good.commit.short_sha(), steps, steps == 1 ? "" : "s");
  return search_first_bad(n, [&](std::size_t index) {
    TestedCommit t = test_commit(b, index);
    b.record.steps.push_back(t);
    b.tested[index] = t;
    out << fmt::format("step {}: {} {}: {} ({})\n", b.record.steps.size(), t.commit.short_sha(), to_string(t.verdict),
                       one_line(t.detail), one_line(t.commit.subject));
    out.flush();
    return t.verdict;
  });
}

// Skipped commits left more than one candidate: they are listed, and the bisect ends with exit 1.
int report_candidates(Bisection& b, const SearchOutcome& found, std::ostream& out) {
  out << "only skipped commits are left to test: the first bad commit could be any of:\n";
  for (std::size_t i : found.candidates) {
    out << fmt::format("  {} {}\n", b.commits[i].sha, one_line(b.commits[i].subject));
  }
  return 1;
}

// The last good and the first bad commit, and their comparison on the regressed rows.
int report_first_bad(Bisection& b, const SearchOutcome& found, std::ostream& out) {
  const CommitRun& last_good = found.last_good ? b.runs.at(*found.last_good) : b.good_run;
  const CommitRun& first_bad = b.runs.at(found.first_bad);
  compare::check_input_identities(last_good.input, first_bad.input, b.options.allow_caliber_mismatch, std::cerr);
  const CompareReport evidence =
      compare_regressed(b, load_rows(last_good.input, b.options.assume_arch), last_good.input,
                        load_rows(first_bad.input, b.options.assume_arch), first_bad.input);
  const CommitInfo& commit = first_bad.commit;
  out << fmt::format("first bad commit: {} {}\n", commit.sha, one_line(commit.subject));
  out << fmt::format("evidence:\n  last good {}: {}\n  first bad {}: {}\n", last_good.commit.short_sha(),
                     last_good.input, commit.short_sha(), first_bad.input);
  compare::write_compare_table(out, evidence);
  b.record.last_good = found.last_good ? b.tested.at(*found.last_good) : b.record.good;
  b.record.first_bad = b.tested.at(found.first_bad);
  std::ostringstream comparison;
  compare::write_compare_json(comparison, evidence);
  b.record.comparison = nlohmann::json::parse(comparison.str());
  return 0;
}

}  // namespace

int run_bisect(const BisectOptions& options, std::ostream& out) {
  Bisection b(options);
  // Everything the user typed is checked before anything is built.
  if (options.assume_arch && options.assume_arch->empty()) throw UsageError("--assume-arch must not be empty");
  if (options.commands.build.empty()) throw UsageError("--build must not be empty (use true when nothing is built)");
  if (options.commands.run.empty()) throw UsageError("--run must not be empty");
  if (options.thresholds) b.thresholds = compare::read_thresholds(*options.thresholds);
  b.record.thresholds_file = b.thresholds.file;
  b.record.commands = options.commands;
  clear_git_repository_environment();
  resolve_history(b);
  b.out_root = prepare_out_directory(options.out);
  out << "bisect: results, logs and bisect.json in " << b.out_root << '\n';
  out.flush();  // builds take minutes: say where their logs are before the first one starts
  b.worktree = std::make_unique<BisectWorktree>(b.repo, (fs::path(b.out_root) / "worktree").string(),
                                                b.record.good.commit.sha);
  preflight(b, out);
  const SearchOutcome found = search(b, out);
  for (std::size_t i : found.candidates) b.record.candidates.push_back(b.commits[i]);
  const int exit_code = found.exact() ? report_first_bad(b, found, out) : report_candidates(b, found, out);
  const std::string record_path = (fs::path(b.out_root) / "bisect.json").string();
  write_bisect_record(record_path, b.record);
  out << "bisect.json: " << record_path << '\n';
  return exit_code;
}

}  // namespace caliber::bisect
