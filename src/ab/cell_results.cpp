#include "ab/cell_results.h"

#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "core/json_fields.h"

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
    const Contract& c = r.contract;
    const std::string how = fmt::format("{}/{}{}", to_string(c.schedule), to_string(c.cache),
                                        c.quantity == Quantity::host_dispatch ? "/host_dispatch" : "");
    ShapeMeasurement m;
    m.key = fmt::format("{} {} {}", r.name, r.params.dump(), how);
    m.label = fmt::format("{} {} [{}]", r.name, compact(r.params), how);
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
  const std::string text = read_text_file(file);
  CellResults cell;
  std::set<std::string> keys;
  std::istringstream in(text);
  std::string line;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      throw InputError(file, line_no, "", fmt::format("malformed JSON line: {}", e.what()));
    }
    const JsonFields f(j, file, line_no, "");
    const std::string shape_id = f.str("shape_id");
    const std::string provider = f.str("provider");
    const std::string status = f.str("benchmark_status");
    const std::optional<bool> correct = f.opt_boolean("correct");
    if (status != "ok" || correct == false) {
      ++cell.rows_failed;
      continue;
    }
    ShapeMeasurement m;
    m.key = shape_id + "/" + provider;
    const std::string kernel = f.opt_str("kernel_name").value_or(f.opt_str("op_type").value_or(""));
    const std::string dtype = f.opt_str("dtype").value_or("");
    const std::string args = f.has("args") && f.get("args").is_object() ? compact(f.get("args")) : "";
    m.label = fmt::format("{} {} {} {} ({})", provider, kernel, dtype, args, shape_id);
    m.value_us = f.number("median_us");
    if (!(m.value_us > 0)) f.fail("median_us", "an ok row needs a positive median");
    if (f.has("kernel_only") && !f.get("kernel_only").is_null()) {
      const JsonFields ko = f.object("kernel_only");
      if (ko.has("summary")) m.rel_iqr = ko.object("summary").opt_number("rel_iqr");
      if (ko.has("warnings") && !ko.array("warnings").empty()) ++cell.rows_warned;
    }
    ++cell.rows_ok;
    if (f.opt_boolean("stable") == false) ++cell.rows_unstable;
    add_row(cell, keys, std::move(m), file, line_no);
  }
  return cell;
}

}  // namespace caliber
