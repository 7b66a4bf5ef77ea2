// The CSV of `caliber bench --csv` -> comparable rows.
//
// The header must be exactly results_csv_columns() (the CSV has no schema version, so its header
// is its version). Contract columns and value_us may be empty: an empty contract cell is
// "not recorded", an empty value_us is "no raw latency" (a placeholder row, or a file written
// before raw latency was kept), which the gate treats by its fail-open / fail-closed rules.
// The CSV carries no raw samples: rows from it get threshold-only verdicts.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "caliber/contract.h"
#include "caliber/errors.h"
#include "io/result_csv.h"
#include "compare/importers.h"
#include "core/arch_text.h"
#include "core/contract_fields.h"
#include "core/csv_records.h"
#include "core/json_text.h"

namespace caliber::compare {
namespace {

// A file's columns, and the contract fields added since it was written that it lacks, each with
// the value its rows mean by leaving it out (core/contract_fields.h).
struct CsvHeader {
  std::vector<std::string> columns;
  std::vector<std::pair<std::string, std::string>> absent;
};

CsvHeader read_header(const CsvRecord& header, const std::string& file) {
  CsvHeader h;
  std::size_t j = 0;
  for (const std::string& want : results_csv_columns()) {
    const std::string have = j < header.fields.size() ? header.fields[j] : "(none)";
    if (have == want) {
      h.columns.push_back(want);
      ++j;
      continue;
    }
    const ContractField* field = find_contract_field(want);
    if (field && !field->absent.empty()) {
      h.absent.emplace_back(want, std::string(field->absent));
      continue;
    }
    throw InputError(file, header.line, have,
                     fmt::format("header column {} is '{}', expected '{}' (not a caliber results CSV of this version)",
                                 j + 1, have, want));
  }
  if (j < header.fields.size()) {
    throw InputError(file, header.line, header.fields[j],
                     fmt::format("header column {} is '{}', expected '(none)' (not a caliber results CSV of this "
                                 "version)",
                                 j + 1, header.fields[j]));
  }
  return h;
}

class CsvRow {
 public:
  CsvRow(const CsvRecord& rec, const CsvHeader& header, const std::string& file)
      : rec_(rec), header_(header), file_(file) {}

  const std::string& cell(const std::string& column) const {
    for (std::size_t i = 0; i < header_.columns.size(); ++i) {
      if (header_.columns[i] == column) return rec_.fields[i];
    }
    // A row that recorded no contract (an empty backend cell) leaves the missing field unrecorded too.
    static const std::string unrecorded;
    for (const auto& [name, value] : header_.absent) {
      if (name == column) return cell("backend").empty() ? unrecorded : value;
    }
    throw std::logic_error("unknown CSV column " + column);
  }
  [[noreturn]] void fail(const std::string& column, const std::string& what) const {
    throw InputError(file_, rec_.line, column, what);
  }
  // A contract cell: empty (unrecorded) or a value the field accepts, in caliber's spelling.
  std::string contract_cell(const ContractField& field) const {
    const std::string column(field.name);
    const std::string& v = cell(column);
    if (v.empty()) return v;
    try {
      return canonical_field_text(field, v);
    } catch (const UsageError& e) {
      fail(column, e.what());
    }
  }
  // The text of a count cell ("" when empty); the count itself in *value.
  std::string integer_cell(const std::string& column, std::int64_t* value = nullptr) const {
    const std::string& v = cell(column);
    if (v.empty()) return v;
    const auto x = parse_integer(v);
    if (!x || *x < 0) fail(column, fmt::format("expected a non-negative integer, got '{}'", v));
    if (value) *value = *x;
    return v;
  }
  // A cell that is empty (nullopt) or a finite number; else the error says `expected`.
  std::optional<double> finite_cell(const std::string& column,
                                    std::string_view expected = "a finite number") const {
    const std::string& v = cell(column);
    if (v.empty()) return std::nullopt;
    const auto x = parse_decimal(v);
    if (!x || !std::isfinite(*x)) fail(column, fmt::format("expected {}, got '{}'", expected, v));
    return x;
  }
  std::optional<double> microseconds_cell(const std::string& column) const {
    constexpr std::string_view expected = "a non-negative number of microseconds";
    const auto x = finite_cell(column, expected);
    if (x && *x < 0) fail(column, fmt::format("expected {}, got '{}'", expected, cell(column)));
    return x;
  }
  long line() const { return rec_.line; }

 private:
  const CsvRecord& rec_;
  const CsvHeader& header_;
  const std::string& file_;
};

// The summary's columns: durations and a relative spread, never negative.
constexpr const char* kSummaryColumns[] = {"min_us", "p10_us", "p25_us", "median_us", "p75_us",
                                           "p90_us", "max_us", "mean_us", "stdev_us", "rel_iqr"};

}  // namespace

std::vector<CompareRow> import_caliber_csv(const std::string& text, const std::string& file) {
  if (!text.empty() && text.back() != '\n') {
    throw InputError(file, std::count(text.begin(), text.end(), '\n') + 1, "",
                     "the last line has no newline (truncated file?)");
  }
  const std::vector<CsvRecord> records = parse_csv_records(text, file);
  if (records.empty()) throw InputError(file, 1, "", "no header row");
  const CsvHeader header = read_header(records.front(), file);
  const std::vector<std::string>& columns = header.columns;
  std::vector<CompareRow> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& rec = records[r];
    if (rec.fields.size() != columns.size()) {
      const std::string missing = rec.fields.size() < columns.size() ? columns[rec.fields.size()] : "";
      throw InputError(file, rec.line, missing,
                       fmt::format("expected {} fields, got {} (truncated row?)", columns.size(),
                                   rec.fields.size()));
    }
    const CsvRow c(rec, header, file);
    CompareRow row;
    row.line = rec.line;
    row.name = c.cell("name");
    if (row.name.empty()) c.fail("name", "must not be empty");
    try {
      row.params = parse_json_text(c.cell("params"), file, rec.line);
    } catch (const InputError& e) {
      c.fail("params", fmt::format("expected a JSON object, got '{}' ({})", c.cell("params"), e.reason()));
    }
    if (!row.params.is_object()) c.fail("params", "expected a JSON object");
    row.arch = c.cell("arch");
    if (const auto problem = arch_problem(row.arch)) c.fail("arch", *problem);
    row.arch_field = "arch";
    row.device_name = c.cell("device_name");
    for (const ContractField& field : contract_field_table()) row.contract[field.name] = c.contract_cell(field);
    row.value_us = c.microseconds_cell("value_us");
    // The summary is not compared, but a file whose summary holds what no measurement writes
    // (a negative, non-finite or non-numeric time) is not a results file to trust.
    for (const char* column : kSummaryColumns) c.microseconds_cell(column);
    c.finite_cell("instrument_perturbation_us");
    c.finite_cell("instrument_perturbation_pct");
    c.integer_cell("n", &row.n);
    row.integrity = c.cell("integrity");
    if (!row.integrity.empty()) {
      try {
        parse_integrity_verdict(row.integrity);
      } catch (const UsageError& e) {
        c.fail("integrity", e.what());
      }
    }
    row.integrity_detail = c.cell("integrity_failure");
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace caliber::compare
