#include "ab/cell_results.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "io/benchmark_results_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// {"a":1,"b":"x"} -> "a=1 b=x" (keys in the object's sorted order).
std::string compact(const json& params) {
  std::string out;
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", it.key(), v);
  }
  return out;
}

void add_row(CellResults& cell, std::set<std::string>& keys, ShapeMeasurement m, const std::string& file, long line) {
  if (!keys.insert(m.key).second) {
    throw InputError(file, line, "", fmt::format("the same shape appears twice in one cell: {}", m.label));
  }
  cell.rows.push_back(std::move(m));
}

bool is_results_document(const fs::path& p) {
  const std::string name = p.filename().string();
  if (p.extension() != ".json") return false;
  if (name.size() >= 18 && name.rfind(".run_identity.json") == name.size() - 18) return false;
  return name != "run_identity.json" && name != "code_fingerprint.json";
}

class DefaultCellResultsReader final : public CellResultsReader {
 public:
  std::string find_results_file(const std::string& cell_dir) const override {
    std::error_code ec;
    const fs::path jsonl = fs::path(cell_dir) / kBenchmarkResultsFileName;
    if (fs::exists(jsonl, ec)) return jsonl.string();
    std::vector<fs::path> docs;
    for (const auto& e : fs::directory_iterator(cell_dir, ec)) {
      if (e.is_regular_file() && is_results_document(e.path())) docs.push_back(e.path());
    }
    if (docs.size() != 1) return {};
    return docs.front().string();
  }
  CellResults read(const std::string& file) const override {
    if (fs::path(file).extension() == ".jsonl") return read_benchmark_results_cell(file);
    return read_caliber_results_cell(file);
  }
};

}  // namespace

const CellResultsReader& default_cell_results_reader() {
  static const DefaultCellResultsReader reader;
  return reader;
}

CellResults read_caliber_results_cell(const std::string& file) {
  CellResults cell;
  std::set<std::string> keys;
  for (const Result& r : read_results_json(file)) {
    // A number whose integrity check failed is not a measurement (docs/integrity.md): counted,
    // never compared.
    if (r.integrity.failed()) {
      ++cell.rows_failed;
      continue;
    }
    const Contract& c = r.contract;
    const std::string how = fmt::format("{}/{}{}", to_string(c.schedule), to_string(c.cache),
                                        c.quantity == Quantity::host_dispatch ? "/host_dispatch" : "");
    ShapeMeasurement m;
    m.key = fmt::format("{} {} {}", r.name, r.params.dump(), how);
    m.label = fmt::format("{} {} [{}]", r.name, r.params.label(), how);
    m.value_us = r.value_us;
    m.rel_iqr = r.summary.rel_iqr;
    ++cell.rows_ok;
    cell.rows_unstable += r.stable ? 0 : 1;
    cell.rows_warned += r.warnings.empty() ? 0 : 1;
    add_row(cell, keys, std::move(m), file, 0);
  }
  return cell;
}

CellResults read_benchmark_results_cell(const std::string& file) {
  CellResults cell;
  std::set<std::string> keys;
  for (const BenchmarkResultRow& r : read_benchmark_results(file)) {
    // Rows that ran but are not measurements (failed, incorrect, unsupported, ...) are counted,
    // never compared: an incorrect output's latency is not a number to compare.
    if (r.benchmark_status != BenchmarkStatus::ok || r.correct == false || !r.median_us || r.integrity.failed()) {
      ++cell.rows_failed;
      continue;
    }
    ShapeMeasurement m;
    m.key = r.shape_id + "/" + r.provider;
    m.label = fmt::format("{} {} {} {} ({})", r.provider, r.kernel_name, r.dtype, compact(r.args), r.shape_id);
    m.value_us = *r.median_us;
    if (!r.kernel_only) {
      // median_us is the eager median (timing_method says why kernel-only failed): another
      // quantity, keyed apart so it is never paired with a kernel-only row of the other side.
      m.eager_fallback = true;
      m.key += " [eager fallback]";
      m.label += " [eager fallback: kernel-only failed]";
    }
    if (r.config) {
      m.config_key = r.config->key;
      m.config_pinning = std::string(to_string(r.config->pinning));
    }
    if (const Result* primary = primary_measurement(r)) {
      m.rel_iqr = primary->summary.rel_iqr;
      if (!primary->warnings.empty()) ++cell.rows_warned;
    }
    ++cell.rows_ok;
    if (r.stable == false) ++cell.rows_unstable;
    add_row(cell, keys, std::move(m), file, 0);
  }
  return cell;
}

}  // namespace caliber
