// benchmark_results.csv: the flat projection of the results rows, and its typed reader.
#include <charconv>
#include <functional>
#include <ostream>

#include <fmt/format.h>

#include "caliber/benchmark_results.h"
#include "caliber/errors.h"
#include "caliber/result_csv.h"
#include "core/contract_fields.h"
#include "core/csv_records.h"
#include "core/json_fields.h"
#include "core/number_text.h"

namespace caliber {
namespace {

using nlohmann::json;

enum class ColumnType { string, integer, number, boolean };

struct Column {
  std::string name;
  ColumnType type;
  std::function<json(const BenchmarkResultRow&)> value;  // null -> empty cell
};

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
  // Every contract field (core/contract_fields.h); one that does not apply is an empty cell.
  for (const ContractField& f : contract_field_table()) {
    cols.push_back({prefix + std::string(f.name),
                    f.type == ContractFieldType::integer ? T::integer : T::string,
                    field([&f](const Result& m) {
                      if (!f.applies(m.contract)) return json(nullptr);
                      if (f.type == ContractFieldType::integer) return json(*parse_integer(f.text(m.contract)));
                      return json(f.text(m.contract));
                    })});
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

// The trailing columns schema version 1 files lack; such files are still read (the integrity
// columns read empty: not recorded).
constexpr std::size_t kIntegrityColumns = 2;

const std::vector<Column>& columns() {
  static const std::vector<Column> cols = [] {
    using T = ColumnType;
    using R = BenchmarkResultRow;
    std::vector<Column> c = {
        {"run_id", T::string, [](const R& r) { return json(r.run_id); }},
        {"shape_id", T::string, [](const R& r) { return json(r.shape_id); }},
        {"op_type", T::string, [](const R& r) { return json(r.op_type); }},
        {"kernel_name", T::string, [](const R& r) { return json(r.kernel_name); }},
        {"dtype", T::string, [](const R& r) { return json(r.dtype); }},
        {"args", T::string, [](const R& r) { return json(r.args.dump()); }},
        {"provider", T::string, [](const R& r) { return json(r.provider); }},
        {"provider_detail", T::string, [](const R& r) { return json(r.provider_detail); }},
        {"candidate_commit", T::string, [](const R& r) { return json(r.candidate_commit); }},
        {"harness_version", T::string, [](const R& r) { return json(r.harness_version); }},
        {"backend", T::string, [](const R& r) { return json(r.backend); }},
        {"device_index", T::integer, [](const R& r) { return json(r.device_index); }},
        {"gpu", T::string, [](const R& r) { return json(r.gpu); }},
        {"arch", T::string, [](const R& r) { return json(r.arch); }},
        {"driver_version", T::string, [](const R& r) { return json(r.driver_version); }},
        {"runtime_version", T::string, [](const R& r) { return json(r.runtime_version); }},
        {"benchmark_status", T::string, [](const R& r) { return json(to_string(r.benchmark_status)); }},
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
        {"host_overhead_us", T::number, [](const R& r) { return opt(r.host_overhead_us); }},
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

json typed_cell(const std::string& text, ColumnType type, const std::string& file, long line,
                const std::string& column) {
  if (text.empty()) return nullptr;
  auto fail = [&](const char* expected) -> json {
    throw InputError(file, line, column, fmt::format("expected {}, got '{}'", expected, text));
  };
  switch (type) {
    case ColumnType::string: return text;
    case ColumnType::boolean:
      if (text == "true") return true;
      if (text == "false") return false;
      return fail("true or false");
    case ColumnType::integer: {
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size()) return fail("an integer");
      return v;
    }
    case ColumnType::number: {
      double v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size()) return fail("a number");
      return v;
    }
  }
  return nullptr;
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

void write_benchmark_results_csv(std::ostream& out, const std::vector<BenchmarkResultRow>& rows) {
  const auto& cols = columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << csv_escape(cols[i].name);
  out << '\n';
  for (const BenchmarkResultRow& r : rows) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      out << (i ? "," : "") << csv_escape(cell_text(cols[i].value(r)));
    }
    out << '\n';
  }
}

std::vector<json> parse_benchmark_results_csv(const std::string& text, const std::string& file,
                                              std::vector<long>* lines) {
  const std::vector<CsvRecord> records = parse_csv_records(text, file);
  if (records.empty()) throw InputError(file, 1, "", "empty file: expected the CSV header");
  const auto& all = columns();
  const CsvRecord& header = records.front();
  // A version 1 file: every column but the integrity ones, in order.
  const std::size_t present = header.fields.size() == all.size() - kIntegrityColumns ? all.size() - kIntegrityColumns
                                                                                      : all.size();
  const std::vector<Column> cols(all.begin(), all.begin() + static_cast<long>(present));
  for (std::size_t i = 0; i < std::max(header.fields.size(), cols.size()); ++i) {
    const std::string got = i < header.fields.size() ? header.fields[i] : "(nothing)";
    const std::string want = i < cols.size() ? cols[i].name : "(nothing)";
    if (got != want) {
      throw InputError(file, header.line, fmt::format("column {}", i + 1),
                       fmt::format("header has '{}' where benchmark_results.csv has '{}'", got, want));
    }
  }
  std::vector<json> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& rec = records[r];
    if (rec.fields.size() != cols.size()) {
      throw InputError(file, rec.line, "",
                       fmt::format("{} fields where the header has {} (truncated row?)", rec.fields.size(),
                                   cols.size()));
    }
    json row = json::object();
    for (std::size_t i = 0; i < cols.size(); ++i) {
      row[cols[i].name] = typed_cell(rec.fields[i], cols[i].type, file, rec.line, cols[i].name);
    }
    for (std::size_t i = cols.size(); i < all.size(); ++i) row[all[i].name] = nullptr;
    rows.push_back(std::move(row));
    if (lines) lines->push_back(rec.line);
  }
  return rows;
}

std::vector<json> read_benchmark_results_csv(const std::string& file) {
  return parse_benchmark_results_csv(read_text_file(file), file);
}

}  // namespace caliber
