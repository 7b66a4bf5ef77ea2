// The multi-shape results of `caliber run` (benchmark_results.jsonl and its CSV projection) ->
// comparable rows: one row per (shape_id, provider) cell.
//
// - name = the op (op_type); params = {provider, shape_id, dtype} plus the shape's args (m, n, k,
//   eps), so thresholds select by provider or by a dimension and tables read as shapes;
// - raw latency = median_us, the PRIMARY number (the kernel-only median, or the eager median when
//   kernel-only could not be measured), and only for an `ok` row: the latency of an incorrect
//   output is not a number to compare against;
// - contract = the contract of that primary measurement (kernel_only, else eager); a row that was
//   never timed has none (unrecorded);
// - samples = the primary measurement's raw samples (JSONL written with --samples); the CSV has none;
// - unstable = why the row is not stable (the reports' rule, results/benchmark_results.h);
// - status = benchmark_status, and `correct: false` is `incorrect` whatever the status says, so a
//   current row that failed or is incorrect fails the gate closed (docs/gate.md, check 4);
// - config = the provider's chosen configuration (`config`; the CSV's config.* columns, absent in
//   CSVs written before them) with the row's run_id, for the record-vs-record check
//   (compare/config_check.h).
#include <fmt/format.h>

#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "compare/importers.h"
#include "core/arch_text.h"
#include "core/contract_fields.h"
#include "core/json_text.h"
#include "core/jsonl.h"
#include "io/benchmark_results_json.h"
#include "io/benchmark_results_csv.h"

namespace caliber::compare {
namespace {

using nlohmann::json;

RowStatus row_status(BenchmarkStatus s) {
  switch (s) {
    case BenchmarkStatus::ok: return RowStatus::ok;
    case BenchmarkStatus::failed: return RowStatus::failed;
    case BenchmarkStatus::skipped: return RowStatus::skipped;
    case BenchmarkStatus::oom: return RowStatus::oom;
    case BenchmarkStatus::unsupported: return RowStatus::unsupported;
    case BenchmarkStatus::incorrect: return RowStatus::incorrect;
    case BenchmarkStatus::not_configured: return RowStatus::not_configured;
    case BenchmarkStatus::faster_than_physical: return RowStatus::faster_than_physical;
  }
  return RowStatus::failed;
}

// The cell's identity within a file. `args` keys are the op's dimensions; they cannot collide with
// the three named keys (ops define m, n, k, eps).
json cell_params(const std::string& provider, const std::string& shape_id, const std::string& dtype,
                 const json& args, const std::string& file, long line) {
  json p = {{"provider", provider}, {"shape_id", shape_id}, {"dtype", dtype}};
  if (!args.is_object()) throw InputError(file, line, "args", "expected a JSON object");
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (p.contains(it.key())) throw InputError(file, line, "args", fmt::format("key '{}' collides with a cell key", it.key()));
    p[it.key()] = it.value();
  }
  return p;
}

// The status, with a correctness failure winning over whatever the status says.
void set_status(CompareRow& row, BenchmarkStatus status, bool marked_incorrect,
                const std::optional<std::string>& reason, const std::optional<std::string>& correctness_error) {
  row.status = marked_incorrect ? RowStatus::incorrect : row_status(status);
  if (row.status == RowStatus::incorrect && correctness_error) {
    row.status_detail = *correctness_error;
  } else if (reason) {
    row.status_detail = *reason;
  }
}

CompareRow row_from_benchmark_result(const BenchmarkResultRow& r, const std::string& file, long line) {
  CompareRow row;
  row.name = r.op_type;
  row.params = cell_params(r.provider, r.shape_id, r.dtype, r.args, file, line);
  row.arch = r.arch;
  row.arch_field = "arch";
  row.device_name = r.gpu;
  row.line = line;
  row.run_id = r.run_id;
  row.config = r.config;
  set_status(row, r.benchmark_status, r.correct == false, r.status_reason, r.correctness_error);
  if (const Result* primary = primary_measurement(r)) {
    row.contract = contract_fields(primary->contract);
    row.samples_us = primary->samples_us;
    row.n = primary->summary.n;
  }
  if (row.status == RowStatus::ok) row.value_us = r.median_us;
  row.unstable = row_instability_reason(r);
  set_integrity(row, r.integrity);
  return row;
}

// A CSV cell as text ("" when empty); integers as their decimal text.
std::string text_cell(const json& row, const std::string& column) {
  const json& v = row.at(column);
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::optional<std::string> opt_text(const json& row, const std::string& column) {
  const std::string t = text_cell(row, column);
  return t.empty() ? std::nullopt : std::optional<std::string>(t);
}

// Why a CSV row is not stable: the reports' rule on what the CSV holds of it (its quantiles).
std::string csv_instability(const json& c) {
  if (!c.at("stable").is_boolean()) return "";
  BenchmarkResultRow r;
  r.stable = c.at("stable").get<bool>();
  if (c.at("p10_us").is_number()) r.p10_us = c.at("p10_us").get<double>();
  if (c.at("p90_us").is_number()) r.p90_us = c.at("p90_us").get<double>();
  return row_instability_reason(r);
}

}  // namespace

std::vector<CompareRow> import_benchmark_results_jsonl(const std::string& text, const std::string& file) {
  std::vector<CompareRow> rows;
  ResultCells cells(file);  // the reader's whole-file rules: one run, one row per cell
  for_each_jsonl_row(text, file, [&](const json& value, long line) {
    const BenchmarkResultRow r = benchmark_result_from_json(value, file, line);
    cells.add(r.run_id, r.shape_id, r.provider, line);
    rows.push_back(row_from_benchmark_result(r, file, line));
  });
  return rows;
}

std::vector<CompareRow> import_benchmark_results_jsonl_file(const std::string& file) {
  std::vector<CompareRow> rows;
  for_each_benchmark_result(file, [&](std::string_view, BenchmarkResultRow r, long line) {
    rows.push_back(row_from_benchmark_result(r, file, line));
  });
  return rows;
}

std::vector<CompareRow> import_benchmark_results_csv(const std::string& text, const std::string& file) {
  std::vector<long> lines;
  const std::vector<json> records = parse_benchmark_results_csv(text, file, &lines);
  std::vector<CompareRow> rows;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const json& c = records[i];
    const long line = lines[i];
    CompareRow row;
    row.name = text_cell(c, "op_type");
    const json args = parse_json_text(text_cell(c, "args"), file, line);  // an object: the reader checked
    row.params = cell_params(text_cell(c, "provider"), text_cell(c, "shape_id"), text_cell(c, "dtype"), args, file, line);
    row.arch = text_cell(c, "arch");
    if (const auto problem = arch_problem(row.arch)) throw InputError(file, line, "arch", *problem);
    row.arch_field = "arch";
    row.device_name = text_cell(c, "gpu");
    row.line = line;
    row.run_id = text_cell(c, "run_id");
    if (const auto pinning = opt_text(c, "config.pinning")) {  // the reader checked the config columns
      row.config = ProviderConfig{parse_config_pinning(*pinning), text_cell(c, "config.key"),
                                  text_cell(c, "config.description"), text_cell(c, "config.source")};
    }
    const BenchmarkStatus status = parse_benchmark_status(text_cell(c, "benchmark_status"));  // checked
    const bool marked_incorrect = c.at("correct").is_boolean() && !c.at("correct").get<bool>();
    if (const auto verdict = opt_text(c, "integrity")) {
      try {
        parse_integrity_verdict(*verdict);
      } catch (const UsageError& e) {
        throw InputError(file, line, "integrity", e.what());
      }
      row.integrity = *verdict;
      row.integrity_detail = opt_text(c, "integrity_failure").value_or("");
    }
    set_status(row, status, marked_incorrect, opt_text(c, "status_reason"), opt_text(c, "correctness_error"));
    // The primary measurement's columns: kernel-only when it was measured, else eager.
    const std::string prefix = !c.at("kernel_only.schedule").is_null() ? "kernel_only."
                               : !c.at("eager.schedule").is_null()     ? "eager."
                                                                       : "";
    if (!prefix.empty()) {
      for (const ContractField& field : contract_field_table()) {
        row.contract[field.name] = text_cell(c, prefix + std::string(field.name));
      }
      const json& n = c.at(prefix + "n");
      row.n = n.is_null() ? 0 : n.get<std::int64_t>();
    }
    if (row.status == RowStatus::ok && !c.at("median_us").is_null()) row.value_us = c.at("median_us").get<double>();
    row.unstable = csv_instability(c);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace caliber::compare
