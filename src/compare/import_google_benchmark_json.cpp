// google-benchmark JSON (--benchmark_out_format=json) -> comparable rows.
//
// Format: {"context": {...}, "benchmarks": [{name, run_name, run_type, repetitions,
// repetition_index, threads, iterations, real_time, cpu_time, time_unit, aggregate_name,
// error_occurred, error_message, ...}]} as written by google-benchmark's JSONReporter
// (src/json_reporter.cc); run_name/run_type are absent in files of old versions.
// One row per run_name (the benchmark with its arguments and /threads:N, /repeats:N suffixes):
//   value   = real_time (wall clock per iteration) in microseconds: the median over the
//             repetitions when there are several (statistic median), the one repetition's value
//             otherwise (statistic mean: one timed loop over `iterations` calls); when the file
//             holds only aggregates (--benchmark_report_aggregates_only), the "median" aggregate,
//             else the "mean" one
//   samples = the repetitions' real_time when there are at least 2 (each is one loop's mean)
//   contract: instrument wallclock ("manual" for /manual_time benchmarks), schedule pipelined
//             (one timer around the loop), cache warm, iterations "google-benchmark:repetitions=N";
//             backend, quantity and warmup are not recorded by the format
//   arch    = not recorded (use --assume-arch to gate such rows)
//   status  = failed when a repetition has error_occurred (error_message as detail), skipped
//             when it is "skipped"
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/statistics.h"
#include "compare/importers.h"
#include "core/json_fields.h"
#include "core/json_line_index.h"

namespace caliber::compare {
namespace {

using nlohmann::json;

// The entry's real_time in microseconds: a finite duration >= 0 in a known unit.
double real_time_us(const JsonFields& f) {
  const double value = f.number("real_time");
  const std::string unit = f.str("time_unit");
  double us = 0;
  if (unit == "ns") us = value * 1e-3;
  else if (unit == "us") us = value;
  else if (unit == "ms") us = value * 1e3;
  else if (unit == "s") us = value * 1e6;
  else f.fail("time_unit", fmt::format("unknown time unit '{}' (expected ns|us|ms|s)", unit));
  if (!(us >= 0) || !std::isfinite(us)) f.fail("real_time", fmt::format("not a duration: {} {}", value, unit));
  return us;
}

struct Run {
  std::size_t first_index = 0;
  std::vector<double> samples_us;
  std::map<std::int64_t, std::size_t> repetition_seen;  // repetition_index -> entry index
  std::optional<double> median_us, mean_us;              // aggregates
  bool manual_time = false;
  RowStatus status = RowStatus::ok;
  std::string detail;
};

// The runs of the file in order of first appearance, by run_name.
struct Runs {
  std::vector<std::string> order;
  std::map<std::string, Run> by_name;
};

// Adds entry i (a repetition or an aggregate, or an error or skip of its run) to its run.
void add_entry(Runs& runs, const JsonFields& b, std::size_t i) {
  const std::string name = b.str("name");
  // The counts the format writes are counts, where present, though only repetition_index is read:
  // a file that says "repetitions": "abc" is not the format.
  for (const char* count : {"repetitions", "repetition_index", "threads", "iterations"}) {
    if (b.has(count)) b.integer_in(count, 0, std::numeric_limits<std::int64_t>::max());
  }
  const std::string run_name = b.opt_str("run_name").value_or(name);
  const std::string run_type = b.opt_str("run_type").value_or("iteration");
  if (run_type != "iteration" && run_type != "aggregate") {
    b.fail("run_type", fmt::format("unknown run type '{}' (expected iteration|aggregate)", run_type));
  }
  auto [it, inserted] = runs.by_name.try_emplace(run_name);
  Run& run = it->second;
  if (inserted) {
    run.first_index = i;
    runs.order.push_back(run_name);
  }
  run.manual_time = run_name.find("/manual_time") != std::string::npos;
  if (b.opt_boolean("error_occurred").value_or(false)) {
    run.status = RowStatus::failed;
    run.detail = b.opt_str("error_message").value_or("");
    return;
  }
  if (b.opt_boolean("skipped").value_or(false)) {
    if (run.status == RowStatus::ok) run.status = RowStatus::skipped;
    run.detail = b.opt_str("skip_message").value_or(b.opt_str("error_message").value_or(""));
    return;
  }
  if (run_type == "aggregate") {
    const std::string aggregate = b.str("aggregate_name");
    if (aggregate != "median" && aggregate != "mean") return;  // stddev, cv, BigO, RMS, ...
    if (b.opt_str("aggregate_unit").value_or("time") != "time") return;
    (aggregate == "median" ? run.median_us : run.mean_us) = real_time_us(b);
    return;
  }
  const double us = real_time_us(b);
  if (const auto rep = b.opt_integer("repetition_index")) {
    const auto [seen, fresh] = run.repetition_seen.emplace(*rep, i);
    if (!fresh) {
      b.fail("repetition_index", fmt::format("duplicate row: repetition {} of {} (first at "
                                             "benchmarks[{}])", *rep, run_name, seen->second));
    }
  }
  run.samples_us.push_back(us);
}

// One run as a row (the format's header comment says how).
CompareRow run_row(const std::string& run_name, const Run& run, const JsonLineIndex& index) {
  CompareRow row;
  row.name = run_name;
  row.origin = fmt::format("benchmarks[{}]", run.first_index);
  row.line = index.line_of(row.origin);
  row.arch_field = "context";
  ContractFields& k = row.contract;
  k["instrument"] = run.manual_time ? "manual" : "wallclock";
  k["schedule"] = "pipelined";
  k["cache"] = "warm";
  row.status = run.status;
  row.status_detail = run.detail;
  if (!run.samples_us.empty()) {
    k["iterations"] = fmt::format("google-benchmark:repetitions={}", run.samples_us.size());
    row.n = static_cast<std::int64_t>(run.samples_us.size());
    if (run.samples_us.size() >= 2) {
      k["statistic"] = "median";
      row.value_us = median(run.samples_us);
      row.samples_us = run.samples_us;
    } else {
      k["statistic"] = "mean";
      row.value_us = run.samples_us.front();
    }
  } else if (run.median_us || run.mean_us) {
    k["statistic"] = run.median_us ? "median" : "mean";
    row.value_us = run.median_us ? run.median_us : run.mean_us;
    k["iterations"] = "google-benchmark:aggregates";
  }
  if (row.status != RowStatus::ok) row.value_us.reset();
  return row;
}

}  // namespace

std::vector<CompareRow> import_google_benchmark_json(const json& doc, const std::string& text,
                                                     const std::string& file) {
  const JsonLineIndex index(text);
  return with_json_lines(text, file, [&] {
    const JsonFields root(doc, file, 0, "");
    root.object("context");
    const json& list = root.array("benchmarks");
    Runs runs;
    for (std::size_t i = 0; i < list.size(); ++i) {
      add_entry(runs, JsonFields(list[i], file, 0, fmt::format("benchmarks[{}]", i)), i);
    }
    std::vector<CompareRow> rows;
    for (const std::string& run_name : runs.order) rows.push_back(run_row(run_name, runs.by_name.at(run_name), index));
    return rows;
  });
}

}  // namespace caliber::compare
