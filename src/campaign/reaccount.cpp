#include "campaign/reaccount.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "integrity/bound_ceilings.h"
#include "integrity/physical_bound.h"
#include "integrity/theoretical_ceilings.h"

namespace caliber::campaign {
namespace {

// The first failed physical bound of the row's measurements, against the measurement's device's
// theoretical ceilings refined by each given ceilings entry (or alone when none are given).
std::optional<std::string> faster_than_physical(const BenchmarkResultRow& row, const ReaccountRules& rules) {
  for (const auto* m : {row.kernel_only ? &*row.kernel_only : nullptr, row.eager ? &*row.eager : nullptr}) {
    if (!m) continue;
    const DeviceCeilings theoretical = theoretical_ceilings(m->device, std::nullopt);
    std::vector<DeviceCeilings> bounds;
    for (const DeviceCeilings& c : rules.ceilings) bounds.push_back(refine_ceilings(theoretical, &c));
    if (bounds.empty()) bounds.push_back(theoretical);
    for (const DeviceCeilings& c : bounds) {
      const IntegrityCheck check = integrity::physical_bound_check(
          {row.bytes, row.flops, m->summary.median_us, parse_dtype(row.dtype), m->contract.cache, rules.llc_bytes}, c);
      if (check.outcome == CheckOutcome::failed) return check.detail;
    }
  }
  return std::nullopt;
}

}  // namespace

ReaccountDecision reaccount_row(const BenchmarkResultRow& row, const std::string& receipt_problem,
                                const ReaccountRules& rules) {
  ReaccountDecision d;
  d.before = row.benchmark_status;
  d.after = row.benchmark_status;
  if (row.benchmark_status != BenchmarkStatus::ok) return d;  // never promoted, never moved sideways
  if (!receipt_problem.empty()) {
    d.after = BenchmarkStatus::failed;
    d.rule = "receipt";
    d.detail = receipt_problem;
    return d;
  }
  if (std::optional<std::string> why = faster_than_physical(row, rules)) {
    d.after = BenchmarkStatus::faster_than_physical;
    d.rule = "physical";
    d.detail = std::move(*why);
    return d;
  }
  if (rules.require_verified && row.integrity.verdict() != IntegrityVerdict::verified) {
    d.after = BenchmarkStatus::failed;
    d.rule = "verified";
    d.detail = fmt::format("integrity {} (--require-verified)", to_string(row.integrity.verdict()));
  }
  return d;
}

BenchmarkResultRow apply_decision(BenchmarkResultRow row, const ReaccountDecision& d) {
  if (!d.demoted()) return row;
  row.benchmark_status = d.after;
  if (d.after == BenchmarkStatus::faster_than_physical) {
    row.integrity.record(integrity_check::physically_possible, CheckOutcome::failed, d.detail);
  }
  row.status_reason = fmt::format("re-accounted ({}): {}", d.rule, d.detail);
  return row;
}

}  // namespace caliber::campaign

#include <filesystem>
#include <map>
#include <ostream>

#include "core/atomic_file.h"
#include "core/created_directories.h"
#include "caliber/errors.h"
#include "caliber/run_identity.h"
#include "campaign/receipts.h"
#include "campaign/result_lines.h"
#include "core/json_fields.h"
#include "io/benchmark_results_csv.h"
#include "io/benchmark_results_json.h"
#include "io/device_ceilings_file.h"

namespace caliber::campaign {

namespace {

namespace fs = std::filesystem;

// --out is outside the campaign, and the campaign is sealed.
void check_reaccount_dirs(const ReaccountOptions& o, const fs::path& dir, const fs::path& target) {
  const auto rel = target.lexically_relative(dir);
  if (target == dir || (!rel.empty() && *rel.begin() != "..")) {
    throw UsageError(fmt::format("--out {}: re-accounting never writes inside the campaign {}", o.out, o.campaign_dir));
  }
  if (!fs::exists(dir / kSealFileName)) {
    throw UsageError(fmt::format("{} is not sealed ({} missing): resume it until it completes, then re-account it",
                                 o.campaign_dir, kSealFileName));
  }
}

// What re-accounting did, by rule.
struct Reaccounted {
  std::size_t rows = 0;
  std::map<std::string, std::size_t> demoted_by_rule;
  std::size_t demoted = 0;
};

// Re-accounts the campaign's rows a row at a time into `files`: the target's results (JSONL and
// CSV) and their table, reaccount.tsv.
Reaccounted reaccount_rows(const fs::path& dir, const fs::path& target, const Verification& v,
                           const ReaccountRules& rules, AtomicFiles& files) {
  Reaccounted r;
  std::ostream& jsonl = files.open((target / kBenchmarkResultsFileName).string());
  std::ostream& csv = files.open((target / kBenchmarkResultsCsvFileName).string());
  std::ostream& tsv = files.open((target / "reaccount.tsv").string());
  write_benchmark_results_csv_header(csv);
  tsv << "shape_id\tprovider\tbefore\tafter\trule\tdetail\n";
  for_each_benchmark_result((dir / kBenchmarkResultsFileName).string(),
                            [&](std::string_view, const BenchmarkResultRow& row, long) {
    const auto problem = v.cell_problems.find(row.shape_id + "/" + row.provider);
    const ReaccountDecision d = reaccount_row(row, problem == v.cell_problems.end() ? "" : problem->second, rules);
    const BenchmarkResultRow after = apply_decision(row, d);
    jsonl << to_json(after).dump() << '\n';
    write_benchmark_results_csv_row(csv, after);
    ++r.rows;
    if (d.demoted()) {
      ++r.demoted;
      ++r.demoted_by_rule[d.rule];
    }
    std::string detail = d.detail;
    for (char& c : detail) {
      if (c == '\t' || c == '\n') c = ' ';
    }
    tsv << fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", row.shape_id, row.provider, to_string(d.before), to_string(d.after),
                       d.rule, detail);
  });
  return r;
}

}  // namespace

int reaccount_campaign(const ReaccountOptions& o, std::ostream& out) {
  const fs::path dir = fs::weakly_canonical(fs::absolute(o.campaign_dir));
  const fs::path target = fs::weakly_canonical(fs::absolute(o.out));
  check_reaccount_dirs(o, dir, target);
  const Verification v = verify_campaign(dir.string());
  ReaccountRules rules;
  rules.require_verified = o.require_verified;
  std::string why_missing;
  const std::optional<RunIdentity> identity = find_run_identity(dir.string(), &why_missing);
  if (identity) rules.llc_bytes = identity->device.llc_bytes;
  if (o.ceilings) rules.ceilings = read_device_ceilings(*o.ceilings);
  // Every file is derived into its temporary before any is renamed into place.
  create_output_directories(o.out, "--out");
  AtomicFiles files;
  const Reaccounted r = reaccount_rows(dir, target, v, rules, files);
  const nlohmann::json summary = {{"kind", "caliber.reaccount_summary"},
                                  {"schema_version", 1},
                                  {"campaign", dir.string()},
                                  {"manifest_sha256", read_manifest(dir.string()).sha256},
                                  {"rows", r.rows},
                                  {"demoted", r.demoted},
                                  {"demoted_by_rule", r.demoted_by_rule},
                                  {"verification_problems", v.problems},
                                  {"rules",
                                   {{"receipt", true},
                                    {"physical", o.ceilings ? nlohmann::json(*o.ceilings) : nlohmann::json(nullptr)},
                                    {"require_verified", o.require_verified}}}};
  files.open((target / "reaccount_summary.json").string()) << summary.dump(2) << '\n';
  files.commit();
  if (identity) write_run_identity((target / kRunIdentityFileName).string(), *identity);
  for (const std::string& p : v.problems) out << "!!! " << p << '\n';
  out << fmt::format("reaccount: {} rows, {} demoted, none promoted; tables in {}\n", r.rows, r.demoted, o.out);
  return r.demoted > 0 ? 1 : 0;
}

}  // namespace caliber::campaign
