// benchmark_results.csv: the flat projection of the results rows, and its typed reader.
#include <functional>
#include <ostream>

#include <fmt/format.h>

#include "io/benchmark_results_csv.h"
#include "caliber/errors.h"
#include "io/result_csv.h"
#include "ledger/shape_ledger.h"
#include "core/contract_fields.h"
#include "core/csv_records.h"
#include "core/json_fields.h"
#include "core/json_text.h"
#include "core/number_text.h"
#include "io/benchmark_results_json.h"

namespace caliber {
namespace {

using nlohmann::json;

// integer and number cells are >= 0 (counts, sizes, times, errors); signed_number is the one
// difference of two times (host_overhead_us).
enum class ColumnType { string, integer, number, signed_number, boolean };

// What a string cell must be, beyond text: "" when `text` is one, else why not.
using CellCheck = std::function<std::string(const std::string& text)>;

struct Column {
  std::string name;
  ColumnType type;
  std::function<json(const BenchmarkResultRow&)> value;  // null -> empty cell
  CellCheck check = nullptr;
  // A column added since files were first written may be missing from a file's header: its cells
  // then read as `absent`, in rows whose `absent_beside` cell is not empty (the measurement was
  // taken), else empty. Null: the column is required.
  json absent = nullptr;
  std::string absent_beside{};
};

// Runs an enum parser of caliber's (which throws UsageError) as a cell check.
template <auto Parse>
std::string parses(const std::string& text) {
  try {
    Parse(text);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

std::string shape_id_check(const std::string& text) {
  return is_shape_id(text) ? "" : fmt::format("'{}' is not a shape id (sha1: and 16 hex digits)", text);
}

std::string args_check(const std::string& text) {
  try {
    if (parse_json_text(text, "args").is_object()) return "";
  } catch (const InputError&) {
  }
  return fmt::format("expected a JSON object, got '{}'", text);
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// Columns of one measurement ("kernel_only." or "eager."), null when it was not taken.
void add_measurement_columns(std::vector<Column>& cols, const std::string& prefix,
                             std::optional<Result> BenchmarkResultRow::*member) {
  auto field = [member](std::function<json(const Result&)> get) {
    return [member, get](const BenchmarkResultRow& r) -> json {
      const auto& m = r.*member;
      return m ? get(*m) : json(nullptr);
    };
  };
  using T = ColumnType;
  // Every contract field (core/contract_fields.h); one that does not apply is an empty cell, and a
  // cell is read back by the field's own parser.
  for (const ContractField& f : contract_field_table()) {
    cols.push_back({prefix + std::string(f.name),
                    f.type == ContractFieldType::integer ? T::integer : T::string,
                    field([&f](const Result& m) {
                      if (!f.applies(m.contract)) return json(nullptr);
                      if (f.type == ContractFieldType::integer) return json(*parse_integer(f.text(m.contract)));
                      return json(f.text(m.contract));
                    }),
                    [&f](const std::string& text) -> std::string {
                      Contract c;
                      try {
                        f.set(c, text);
                        return "";
                      } catch (const UsageError& e) {
                        return e.what();
                      }
                    },
                    f.absent.empty() ? json(nullptr) : json(std::string(f.absent)), prefix + "backend"});
  }
  cols.push_back({prefix + "value_us", T::number, field([](const Result& m) { return json(m.value_us); })});
  cols.push_back({prefix + "n", T::integer, field([](const Result& m) { return json(m.summary.n); })});
  cols.push_back({prefix + "median_us", T::number, field([](const Result& m) { return json(m.summary.median_us); })});
  cols.push_back({prefix + "p10_us", T::number, field([](const Result& m) { return json(m.summary.p10_us); })});
  cols.push_back({prefix + "p90_us", T::number, field([](const Result& m) { return json(m.summary.p90_us); })});
  cols.push_back({prefix + "mean_us", T::number, field([](const Result& m) { return json(m.summary.mean_us); })});
  cols.push_back({prefix + "stable", T::boolean, field([](const Result& m) { return json(m.stable); })});
  cols.push_back({prefix + "stop_reason", T::string, field([](const Result& m) { return json(m.stop_reason); })});
  cols.push_back({prefix + "wall_time_ms", T::number, field([](const Result& m) { return json(m.wall_time_ms); })});
  // Instrument cupti: CUPTI's median minus the events' (tracing off), docs/cupti.md.
  cols.push_back({prefix + "instrument_perturbation_us", T::number, field([](const Result& m) {
                    return m.instrument_perturbation && m.instrument_perturbation->measured
                               ? json(m.instrument_perturbation->delta_us)
                               : json(nullptr);
                  })});
  cols.push_back({prefix + "instrument_perturbation_pct", T::number, field([](const Result& m) {
                    return m.instrument_perturbation && m.instrument_perturbation->measured
                               ? json(m.instrument_perturbation->delta_pct)
                               : json(nullptr);
                  })});
}

// The trailing columns older files lack; such files are still read, the missing columns empty
// (not recorded). Version 1 files end before the integrity columns, version 2 files before the
// config columns.
constexpr std::size_t kConfigColumns = 4;     // since version 3
constexpr std::size_t kIntegrityColumns = 2;  // since version 2

const std::vector<Column>& columns() {
  static const std::vector<Column> cols = [] {
    using T = ColumnType;
    using R = BenchmarkResultRow;
    std::vector<Column> c = {
        {"run_id", T::string, [](const R& r) { return json(r.run_id); }},
        {"shape_id", T::string, [](const R& r) { return json(r.shape_id); }, shape_id_check},
        {"op_type", T::string, [](const R& r) { return json(r.op_type); }},
        {"kernel_name", T::string, [](const R& r) { return json(r.kernel_name); }},
        {"dtype", T::string, [](const R& r) { return json(r.dtype); }, parses<parse_dtype>},
        {"args", T::string, [](const R& r) { return json(r.args.dump()); }, args_check},
        {"provider", T::string, [](const R& r) { return json(r.provider); }},
        {"provider_detail", T::string, [](const R& r) { return json(r.provider_detail); }},
        {"candidate_commit", T::string, [](const R& r) { return json(r.candidate_commit); }},
        {"harness_version", T::string, [](const R& r) { return json(r.harness_version); }},
        {"backend", T::string, [](const R& r) { return json(r.backend); }, parses<parse_backend>},
        {"device_index", T::integer, [](const R& r) { return json(r.device_index); }},
        {"gpu", T::string, [](const R& r) { return json(r.gpu); }},
        {"arch", T::string, [](const R& r) { return json(r.arch); }},
        {"driver_version", T::string, [](const R& r) { return json(r.driver_version); }},
        {"runtime_version", T::string, [](const R& r) { return json(r.runtime_version); }},
        {"benchmark_status", T::string, [](const R& r) { return json(to_string(r.benchmark_status)); },
         parses<parse_benchmark_status>},
        {"status_reason", T::string, [](const R& r) { return opt(r.status_reason); }},
        {"correct", T::boolean, [](const R& r) { return opt(r.correct); }},
        {"correctness_error", T::string, [](const R& r) { return opt(r.correctness_error); }},
        {"rel_fro_error", T::number, [](const R& r) {
           return r.correctness && std::isfinite(r.correctness->rel_fro_error) ? json(r.correctness->rel_fro_error) : json(nullptr);
         }},
        {"max_scaled_error", T::number, [](const R& r) {
           return r.correctness && std::isfinite(r.correctness->max_scaled_error) ? json(r.correctness->max_scaled_error) : json(nullptr);
         }},
        {"checked_rows", T::integer, [](const R& r) { return r.correctness ? json(r.correctness->checked_rows) : json(nullptr); }},
        {"total_rows", T::integer, [](const R& r) { return r.correctness ? json(r.correctness->total_rows) : json(nullptr); }},
        {"tolerance_rel_fro", T::number, [](const R& r) { return r.correctness ? json(r.correctness->tolerance_rel_fro) : json(nullptr); }},
        {"warmup_iters", T::integer, [](const R& r) { return json(r.warmup_iters); }},
        {"repeat_iters", T::integer, [](const R& r) { return json(r.repeat_iters); }},
        {"median_us", T::number, [](const R& r) { return opt(r.median_us); }},
        {"eager_median_us", T::number, [](const R& r) { return opt(r.eager_median_us); }},
        {"graph_median_us", T::number, [](const R& r) { return opt(r.graph_median_us); }},
        {"host_overhead_us", T::signed_number, [](const R& r) { return opt(r.host_overhead_us); }},
        {"p10_us", T::number, [](const R& r) { return opt(r.p10_us); }},
        {"p90_us", T::number, [](const R& r) { return opt(r.p90_us); }},
        {"timing_method", T::string, [](const R& r) { return opt(r.timing_method); }},
        {"stable", T::boolean, [](const R& r) { return opt(r.stable); }},
        {"flags", T::string, [](const R& r) {
           std::string joined;
           for (const std::string& f : row_flags(r)) joined += (joined.empty() ? "" : "|") + f;
           return json(joined);
         }},
        {"includes_allocation", T::boolean, [](const R& r) { return json(r.includes_allocation); }},
        {"includes_layout_conversion", T::boolean, [](const R& r) { return json(r.includes_layout_conversion); }},
        {"includes_jit", T::boolean, [](const R& r) { return json(r.includes_jit); }},
        {"bytes", T::integer, [](const R& r) { return json(r.bytes); }},
        {"flops", T::integer, [](const R& r) { return json(r.flops); }},
    };
    add_measurement_columns(c, "kernel_only.", &R::kernel_only);
    add_measurement_columns(c, "eager.", &R::eager);
    c.push_back({"cell_wall_time_ms", T::number, [](const R& r) { return json(r.cell_wall_time_ms); }});
    c.push_back({"finished_at", T::string, [](const R& r) { return json(r.finished_at); }});
    // Since schema version 2 (kIntegrityColumns, below): what was verified (docs/integrity.md).
    c.push_back({"integrity", T::string, [](const R& r) { return json(to_string(r.integrity.verdict())); }});
    c.push_back({"integrity_failure", T::string, [](const R& r) {
                   const std::string f = r.integrity.first_failure();
                   return f.empty() ? json(nullptr) : json(f);
                 }});
    // Since version 3 (kConfigColumns): the configuration the provider chose (docs/runner.md,
    // "Configs recorded and replayed"); empty for providers that choose none.
    c.push_back({"config.pinning", T::string,
                 [](const R& r) { return r.config ? json(to_string(r.config->pinning)) : json(nullptr); },
                 parses<parse_config_pinning>});
    c.push_back({"config.key", T::string, [](const R& r) { return r.config ? json(r.config->key) : json(nullptr); }});
    c.push_back({"config.description", T::string, [](const R& r) {
                   return r.config && !r.config->description.empty() ? json(r.config->description) : json(nullptr);
                 }});
    c.push_back({"config.source", T::string, [](const R& r) {
                   return r.config && !r.config->source.empty() ? json(r.config->source) : json(nullptr);
                 }});
    return c;
  }();
  return cols;
}

std::string cell_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());  // shortest round trip
  return v.dump();
}

json typed_cell(const std::string& text, const Column& column, const std::string& file, long line) {
  if (text.empty()) return nullptr;
  auto fail = [&](const std::string& why) -> json { throw InputError(file, line, column.name, why); };
  auto expected = [&](const char* what) { return fmt::format("expected {}, got '{}'", what, text); };
  switch (column.type) {
    case ColumnType::string:
      if (column.check) {
        if (const std::string why = column.check(text); !why.empty()) return fail(why);
      }
      return text;
    case ColumnType::boolean:
      if (text == "true") return true;
      if (text == "false") return false;
      return fail(expected("true or false"));
    case ColumnType::integer: {
      const auto v = parse_integer(text);
      if (!v || *v < 0) return fail(expected("an integer >= 0"));
      return *v;
    }
    case ColumnType::number:
    case ColumnType::signed_number: {
      const auto v = parse_decimal(text);  // finite only
      if (!v) return fail(expected("a finite number"));
      if (column.type == ColumnType::number && *v < 0) return fail(expected("a number >= 0"));
      return *v;
    }
  }
  return nullptr;
}

// The row rules the JSONL reader applies to the same fields (status rules, one run, one row per
// cell), on a typed CSV row.
void check_row(const json& row, ResultCells& cells, const std::string& file, long line) {
  auto text = [&](const char* column) { return row.at(column).is_null() ? std::string() : row.at(column).get<std::string>(); };
  if (row.at("benchmark_status").is_null()) throw InputError(file, line, "benchmark_status", "missing");
  StatusFacts facts;
  facts.status = parse_benchmark_status(text("benchmark_status"));  // the column's check passed
  if (row.at("correct").is_boolean()) facts.correct = row.at("correct").get<bool>();
  facts.has_median = !row.at("median_us").is_null();
  facts.has_status_reason = !text("status_reason").empty();
  facts.has_correctness_error = !row.at("correctness_error").is_null();
  if (const auto v = status_rule_violation(facts)) throw InputError(file, line, v->first, v->second);
  for (const char* column : {"run_id", "shape_id", "provider"}) {
    if (text(column).empty()) throw InputError(file, line, column, "must not be empty");
  }
  // The config columns, by the JSONL reader's rules for `config`.
  if (row.at("config.pinning").is_null()) {
    for (const char* column : {"config.key", "config.description", "config.source"}) {
      if (!row.at(column).is_null()) throw InputError(file, line, column, "set without config.pinning");
    }
  } else {
    const ConfigPinning pinning = parse_config_pinning(text("config.pinning"));  // the column's check passed
    if (text("config.key").empty()) {
      throw InputError(file, line, "config.key", "must hold the provider's text for its choice");
    }
    if (pinning == ConfigPinning::replayed && text("config.source").empty()) {
      throw InputError(file, line, "config.source", "a replayed config names the run it was recorded in");
    }
    if (pinning != ConfigPinning::replayed && !text("config.source").empty()) {
      throw InputError(file, line, "config.source",
                       fmt::format("only a replayed config has a source (this one is {})", to_string(pinning)));
    }
  }
  cells.add(text("run_id"), text("shape_id"), text("provider"), line);
}

}  // namespace

const std::vector<std::string>& benchmark_results_csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Column& c : columns()) out.push_back(c.name);
    return out;
  }();
  return names;
}

void write_benchmark_results_csv_header(std::ostream& out) {
  const auto& cols = columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << csv_escape(cols[i].name);
  out << '\n';
}

void write_benchmark_results_csv_row(std::ostream& out, const BenchmarkResultRow& r) {
  const auto& cols = columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << csv_escape(cell_text(cols[i].value(r)));
  out << '\n';
}

void write_benchmark_results_csv(std::ostream& out, const std::vector<BenchmarkResultRow>& rows) {
  write_benchmark_results_csv_header(out);
  for (const BenchmarkResultRow& r : rows) write_benchmark_results_csv_row(out, r);
}

namespace {

// How a file's header maps onto the columns: the columns it has, in order, and those it lacks
// (a column with an `absent` value, or the integrity/config columns a version 1 or 2 file ends
// before). Throws InputError at the first column that is neither.
struct HeaderMap {
  std::vector<const Column*> present;
  std::vector<const Column*> missing;
};

HeaderMap map_header(const CsvRecord& header, const std::string& file) {
  const auto& all = columns();
  const std::vector<std::string>& have = header.fields;
  HeaderMap m;
  std::size_t j = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Column& c = all[i];
    if (j < have.size() && have[j] == c.name) {
      m.present.push_back(&c);
      ++j;
    } else if (!c.absent.is_null()) {
      m.missing.push_back(&c);
    } else if (j == have.size() &&
               (i == all.size() - kConfigColumns || i == all.size() - kConfigColumns - kIntegrityColumns)) {
      for (; i < all.size(); ++i) m.missing.push_back(&all[i]);
    } else {
      throw InputError(file, header.line, fmt::format("column {}", j + 1),
                       fmt::format("header has '{}' where benchmark_results.csv has '{}'",
                                   j < have.size() ? have[j] : "(nothing)", c.name));
    }
  }
  if (j < have.size()) {
    throw InputError(file, header.line, fmt::format("column {}", j + 1),
                     fmt::format("header has '{}' where benchmark_results.csv has '(nothing)'", have[j]));
  }
  return m;
}

}  // namespace

std::vector<json> parse_benchmark_results_csv(const std::string& text, const std::string& file,
                                              std::vector<long>* lines) {
  const std::vector<CsvRecord> records = parse_csv_records(text, file);
  if (records.empty()) throw InputError(file, 1, "", "empty file: expected the CSV header");
  const HeaderMap header = map_header(records.front(), file);
  const std::vector<const Column*>& cols = header.present;
  std::vector<json> rows;
  ResultCells cells(file);
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& rec = records[r];
    if (rec.fields.size() != cols.size()) {
      throw InputError(file, rec.line, "",
                       fmt::format("{} fields where the header has {} (truncated row?)", rec.fields.size(),
                                   cols.size()));
    }
    json row = json::object();
    for (std::size_t i = 0; i < cols.size(); ++i) row[cols[i]->name] = typed_cell(rec.fields[i], *cols[i], file, rec.line);
    for (const Column* c : header.missing) {
      const bool taken = !c->absent.is_null() && row.contains(c->absent_beside) && !row[c->absent_beside].is_null();
      row[c->name] = taken ? c->absent : json(nullptr);
    }
    check_row(row, cells, file, rec.line);
    rows.push_back(std::move(row));
    if (lines) lines->push_back(rec.line);
  }
  return rows;
}

std::vector<json> read_benchmark_results_csv(const std::string& file) {
  return parse_benchmark_results_csv(read_text_file(file), file);
}

}  // namespace caliber
