// An input as a history run (history/run_record.h).
#include "history/run_record.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <regex>

#include <fmt/format.h>

#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "caliber/statistics.h"
#include "compare/importers.h"
#include "core/contract_fields.h"
#include "core/sha256.h"
#include "core/subprocess.h"

namespace caliber::history {
namespace {

std::string utc_text(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// A date as given: "2026-12-01" or "2026-12-01T09:30:00Z", always stored in the second form so
// that dates sort as text.
std::string normalized_date(const std::string& date, const std::string& what) {
  static const std::regex day(R"(\d{4}-\d{2}-\d{2})"), stamp(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  if (std::regex_match(date, stamp)) return date;
  if (std::regex_match(date, day)) return date + "T00:00:00Z";
  throw UsageError(fmt::format("{} '{}' is not a UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)", what, date));
}

std::string file_mtime(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "1970-01-01T00:00:00Z";
  return utc_text(st.st_mtime);
}

// The commit of the working directory's checkout, when it is one.
std::pair<std::string, std::string> head_commit() {
  SubprocessOptions o;
  o.argv = {"git", "rev-parse", "HEAD"};
  o.capture_stdout = true;
  o.stderr_path = "/dev/null";
  o.timeout_s = 30;
  const SubprocessResult r = run_subprocess(o);
  std::string sha = r.captured_stdout;
  while (!sha.empty() && (sha.back() == '\n' || sha.back() == '\r')) sha.pop_back();
  if (r.exit_code != 0 || sha.empty()) return {"unknown", "unknown (no --commit, and not in a git checkout)"};
  return {sha, "git HEAD of the working directory"};
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789-_./=:,@+%") == std::string::npos;
    std::string q = a;
    if (!plain) {
      q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

std::optional<Interval> median_interval(const compare::CompareRow& row) {
  if (row.samples_us.empty() || row.contract["statistic"] != "median") return std::nullopt;
  std::vector<double> sorted = row.samples_us;
  std::sort(sorted.begin(), sorted.end());
  if (static_cast<std::int64_t>(sorted.size()) < min_samples_for_median_ci()) return std::nullopt;
  return median_ci_order_statistics(sorted);
}

PointRecord point_of(const compare::CompareRow& row, const std::string& identity_key) {
  PointRecord p;
  p.series = series_of(row, identity_key);
  p.status = std::string(compare::to_string(row.status));
  if (row.status == compare::RowStatus::ok) p.value_us = row.value_us;
  if (const auto ci = median_interval(row); ci && p.value_us) {
    p.ci_low_us = ci->lo;
    p.ci_high_us = ci->hi;
  }
  p.samples = row.n;
  p.integrity = row.integrity;
  p.unstable = row.unstable;
  return p;
}

void set_identity(RunRecord& run, const std::optional<RunIdentity>& identity) {
  nlohmann::json fields = nlohmann::json::object();
  if (identity) {
    const auto names = caliber_field_names();
    const auto values = caliber_field_values(*identity);
    for (std::size_t i = 0; i < names.size(); ++i) fields[names[i]] = values[i];
    run.run_id = identity->run_id;
    run.hostname = identity->hostname;
    run.command = command_text(identity->command);
    run.device = identity->device.name;
  }
  run.identity_fields = fields.dump();
  run.identity_key = identity ? sha256_hex(run.identity_fields).substr(0, 16) : "none";
}

}  // namespace

SeriesRecord series_of(const compare::CompareRow& row, const std::string& identity_key) {
  SeriesRecord s;
  s.name = row.name;
  s.params = row.params.dump();
  s.arch = row.arch;
  nlohmann::json contract = nlohmann::json::object();
  for (const ContractField& f : contract_field_table()) contract[std::string(f.name)] = row.contract[f.name];
  s.contract = contract.dump();
  s.identity_key = identity_key;
  s.label = row.label();
  const nlohmann::json key = {s.name, s.params, s.arch, s.contract, s.identity_key};
  s.key = sha256_hex(key.dump());
  return s;
}

RunRecord read_run_record(const RunSource& source) {
  RunRecord run;
  if (source.date) run.date = normalized_date(*source.date, "--date");
  const compare::InputRows input = compare::read_compare_input(source.input);
  const std::string file = compare::compare_input_file(source.input);
  run.format = std::string(compare::to_string(input.format));
  run.source = source.input;
  run.run_key = sha256_file_hex(file);
  std::optional<RunIdentity> identity;
  if (compare::written_by_caliber(input.format)) {
    std::string why;
    identity = find_run_identity(source.input, &why);
  }
  set_identity(run, identity);
  if (run.date.empty()) {
    run.date = identity && !identity->created_at.empty() ? normalized_date(identity->created_at, "created_at")
                                                         : file_mtime(file);
  }
  if (source.commit) {
    run.commit = *source.commit;
    run.commit_source = "--commit";
  } else {
    std::tie(run.commit, run.commit_source) = head_commit();
  }
  for (const compare::CompareRow& row : input.rows) {
    if (run.arch.empty()) run.arch = row.arch;
    if (run.device.empty()) run.device = row.device_name;
    run.points.push_back(point_of(row, run.identity_key));
  }
  return run;
}

}  // namespace caliber::history
