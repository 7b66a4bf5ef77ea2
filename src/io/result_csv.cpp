#include "io/result_csv.h"

#include <ostream>

#include <fmt/format.h>

#include "core/contract_fields.h"

namespace caliber {
namespace {

// Shortest text that reads back to the same double.
std::string num(double v) { return fmt::format("{}", v); }

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// The columns after the contract's, in order.
const std::vector<std::string> kMeasurementColumns = {
    "value_us", "n",       "min_us",   "p10_us",  "p25_us",      "median_us",
    "p75_us",   "p90_us",  "max_us",   "mean_us", "stdev_us",    "rel_iqr",
    "stable",   "stop_reason", "flush_bytes", "rotation_copies", "flags", "warnings",
    "instrument_perturbation_us", "instrument_perturbation_pct", "integrity", "integrity_failure"};

}  // namespace

const std::vector<std::string>& results_csv_columns() {
  // name, params, the device, every contract field (core/contract_fields.h), the measurement.
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"name", "params", "device_name", "arch"};
    for (const ContractField& f : contract_field_table()) c.emplace_back(f.name);
    c.insert(c.end(), kMeasurementColumns.begin(), kMeasurementColumns.end());
    return c;
  }();
  return columns;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

void write_results_csv(std::ostream& out, const std::vector<Result>& results) {
  std::vector<std::string> header;
  for (const auto& c : results_csv_columns()) header.push_back(csv_escape(c));
  out << join(header, ",") << '\n';
  for (const Result& r : results) {
    const Contract& c = r.contract;
    const Summary& s = r.summary;
    std::vector<std::string> row = {r.name, r.params.dump(), r.device.name, r.device.arch};
    for (const ContractField& f : contract_field_table()) row.push_back(f.applies(c) ? f.text(c) : "");
    row.insert(row.end(), {num(r.value_us),
                           std::to_string(s.n),
                           num(s.min_us),
                           num(s.p10_us),
                           num(s.p25_us),
                           num(s.median_us),
                           num(s.p75_us),
                           num(s.p90_us),
                           num(s.max_us),
                           num(s.mean_us),
                           num(s.stdev_us),
                           num(s.rel_iqr),
                           r.stable ? "true" : "false",
                           r.stop_reason,
                           std::to_string(r.flush_bytes),
                           std::to_string(r.rotation_copies),
                           join(r.flags, "|"),
                           join(r.warnings, "; "),
                           r.instrument_perturbation && r.instrument_perturbation->measured
                               ? num(r.instrument_perturbation->delta_us)
                               : "",
                           r.instrument_perturbation && r.instrument_perturbation->measured
                               ? num(r.instrument_perturbation->delta_pct)
                               : "",
                           std::string(to_string(r.integrity.verdict())),
                           r.integrity.first_failure()});
    std::vector<std::string> escaped;
    for (const auto& f : row) escaped.push_back(csv_escape(f));
    out << join(escaped, ",") << '\n';
  }
}

}  // namespace caliber
