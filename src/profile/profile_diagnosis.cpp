// Profile diagnoses: the stored outcome of `caliber profile` for one cell, and ncu's raw CSV.
#include "profile/profiler_gate.h"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "core/unit_text.h"
#include "core/csv_records.h"
#include "core/json_fields.h"
#include "core/number_text.h"
#include "core/unit_text.h"

namespace caliber {
namespace {

using nlohmann::json;
constexpr const char* kKind = "caliber.profile_diagnosis";
constexpr const char* kTime = "gpu__time_duration.sum";
constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kLocalLoad = "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum";
constexpr const char* kLocalStore = "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum";

// ncu writes thousands separators ("1,234.5").
std::optional<double> parse_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  return parse_decimal(text);
}

}  // namespace

const std::vector<std::string>& profile_metrics() {
  static const std::vector<std::string> metrics = {
      kTime,
      kDramRead,
      kDramWrite,
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "launch__grid_size",
      "launch__block_size",
      "launch__registers_per_thread",
      kLocalLoad,
      kLocalStore,
  };
  return metrics;
}

std::optional<double> ProfileDiagnosis::total(const std::string& metric) const {
  std::optional<double> sum;
  for (const auto& k : kernels) {
    if (auto it = k.metrics.find(metric); it != k.metrics.end()) sum = sum.value_or(0) + it->second;
  }
  return sum;
}

std::optional<double> ProfileDiagnosis::local_memory_bytes() const {
  const auto ld = total(kLocalLoad);
  const auto st = total(kLocalStore);
  if (!ld && !st) return std::nullopt;
  return ld.value_or(0) + st.value_or(0);
}

std::string ProfileDiagnosis::summary_line() const {
  if (status != "profiled") return status + ": " + reason;
  std::string out = fmt::format("profiled: {} kernel{}", kernels.size(), kernels.size() == 1 ? "" : "s");
  if (const auto t = total(kTime)) out += fmt::format(", {} us", format_us(*t / 1000.0));  // ns -> us
  const auto rd = total(kDramRead);
  const auto wr = total(kDramWrite);
  if (rd || wr) out += ", DRAM " + format_bytes(static_cast<std::uint64_t>(rd.value_or(0) + wr.value_or(0)));
  if (const auto local = local_memory_bytes()) {
    out += ", local memory " + format_bytes(static_cast<std::uint64_t>(*local));
  }
  return out;
}

std::string profile_directory(const std::string& root, const std::string& shape_id, const std::string& provider) {
  const std::string hex = shape_id.rfind("sha1:", 0) == 0 ? shape_id.substr(5) : shape_id;
  return (std::filesystem::path(root) / hex / provider).string();
}

std::string profile_diagnosis_json(const ProfileDiagnosis& d) {
  json kernels = json::array();
  for (const auto& k : d.kernels) kernels.push_back({{"name", k.name}, {"metrics", k.metrics}, {"units", k.units}});
  const json j = {{"schema_version", kProfileDiagnosisSchemaVersion},
                  {"kind", kKind},
                  {"status", d.status},
                  {"reason", d.reason},
                  {"op_type", d.op_type},
                  {"shape_id", d.shape_id},
                  {"provider", d.provider},
                  {"created_at", d.created_at},
                  {"command", d.command},
                  {"kernels", kernels}};
  return j.dump(2) + "\n";
}

void write_profile_diagnosis(const std::string& file, const ProfileDiagnosis& d) {
  const auto parent = std::filesystem::path(file).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(file, [&](std::ostream& out) { out << profile_diagnosis_json(d); });
}

ProfileDiagnosis read_profile_diagnosis(const std::string& file) {
  const json doc = parse_json_document(read_text_file(file), file);
  JsonFields f(doc, file, 0, "");
  static const std::set<std::string> keys = {"schema_version", "kind",       "status",     "reason",
                                             "op_type",        "shape_id",   "provider",   "created_at",
                                             "command",        "kernels"};
  f.refuse_unknown(keys);
  if (f.integer("schema_version") != kProfileDiagnosisSchemaVersion) {
    f.fail("schema_version", fmt::format("unsupported schema version (this caliber reads {})",
                                         kProfileDiagnosisSchemaVersion));
  }
  if (f.str("kind") != kKind) f.fail("kind", fmt::format("expected '{}'", kKind));
  ProfileDiagnosis d;
  d.status = f.str("status");
  if (d.status != "profiled" && d.status != "deferred" && d.status != "failed") {
    f.fail("status", fmt::format("unknown status '{}' (expected profiled|deferred|failed)", d.status));
  }
  d.reason = f.str("reason");
  if (d.status != "profiled" && d.reason.empty()) f.fail("reason", "must say why the profile is " + d.status);
  d.op_type = f.str("op_type");
  d.shape_id = f.str("shape_id");
  d.provider = f.str("provider");
  d.created_at = f.str("created_at");
  const json& command = f.array("command");
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (!command[i].is_string()) f.fail(fmt::format("command[{}]", i), "expected a string");
    d.command.push_back(command[i].get<std::string>());
  }
  const json& kernels = f.array("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const JsonFields k(kernels[i], file, 0, fmt::format("kernels[{}]", i));
    ProfiledKernel pk;
    pk.name = k.str("name");
    const JsonFields metrics = k.object("metrics");
    for (const auto& [name, value] : metrics.json().items()) pk.metrics[name] = metrics.number(name);
    const JsonFields units = k.object("units");
    for (const auto& [name, value] : units.json().items()) pk.units[name] = units.str(name);
    d.kernels.push_back(std::move(pk));
  }
  return d;
}

std::optional<ProfileDiagnosis> find_profile_diagnosis(const std::string& root, const std::string& shape_id,
                                                       const std::string& provider) {
  const std::string file = profile_directory(root, shape_id, provider) + "/diagnosis.json";
  if (!std::filesystem::exists(file)) return std::nullopt;
  return read_profile_diagnosis(file);
}

std::vector<ProfiledKernel> parse_ncu_raw_csv(const std::string& text, const std::string& file) {
  // ncu mixes its own messages ("==PROF== ...", "==WARNING== ...") into its output.
  std::string table;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.rfind("==", 0) != 0) table += line + "\n";
    start = end + 1;
  }
  const std::vector<CsvRecord> records = parse_csv_records(table, file);
  if (records.empty()) return {};
  const std::vector<std::string>& header = records[0].fields;
  const auto name_at = std::find(header.begin(), header.end(), "Kernel Name");
  if (name_at == header.end()) {
    throw InputError(file, records[0].line, "Kernel Name", "not an ncu raw CSV page: no 'Kernel Name' column");
  }
  const auto name_col = static_cast<std::size_t>(name_at - header.begin());
  std::vector<std::size_t> metric_cols;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (std::find(profile_metrics().begin(), profile_metrics().end(), header[i]) != profile_metrics().end()) {
      metric_cols.push_back(i);
    }
  }
  std::size_t first = 1;
  std::vector<std::string> units(header.size());
  // The units record has an empty kernel name.
  if (records.size() > 1 && records[1].fields.size() == header.size() && records[1].fields[name_col].empty()) {
    units = records[1].fields;
    first = 2;
  }
  std::vector<ProfiledKernel> out;
  for (std::size_t r = first; r < records.size(); ++r) {
    const auto& fields = records[r].fields;
    if (fields.size() != header.size()) {
      throw InputError(file, records[r].line, "",
                       fmt::format("{} fields, the header has {}", fields.size(), header.size()));
    }
    ProfiledKernel k;
    k.name = fields[name_col];
    for (std::size_t c : metric_cols) {
      if (const auto v = parse_number(fields[c])) {
        k.metrics[header[c]] = *v;
        k.units[header[c]] = units[c];
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<std::string> expand_cell_command(std::string_view templ, const std::map<std::string, std::string>& values) {
  std::vector<std::string> argv;
  std::size_t start = 0;
  const std::string t(templ);
  while (start < t.size()) {
    const std::size_t space = t.find(' ', start);
    const std::string token = t.substr(start, space == std::string::npos ? std::string::npos : space - start);
    start = space == std::string::npos ? t.size() : space + 1;
    if (token.empty()) continue;
    std::string out;
    std::size_t i = 0;
    while (i < token.size()) {
      const std::size_t open = token.find('{', i);
      if (open == std::string::npos) {
        out += token.substr(i);
        break;
      }
      const std::size_t close = token.find('}', open);
      if (close == std::string::npos) throw UsageError(fmt::format("cell command: unterminated placeholder in '{}'", token));
      out += token.substr(i, open - i);
      const std::string name = token.substr(open + 1, close - open - 1);
      auto it = values.find(name);
      if (it == values.end()) throw UsageError(fmt::format("cell command: unknown placeholder {{{}}}", name));
      out += it->second;
      i = close + 1;
    }
    argv.push_back(out);
  }
  return argv;
}

}  // namespace caliber
