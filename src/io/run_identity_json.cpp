// run_identity.json: writer, strict reader, and where a run's identity lives.
#include <algorithm>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "caliber/run_identity.h"
#include "caliber/run_identity_json.h"
#include "core/json_fields.h"
#include "core/json_line_index.h"

namespace caliber {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kKind = "caliber.run_identity";
constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

json to_json(const HashedFile& f) { return json{{"role", f.role}, {"path", f.path}, {"sha256", f.sha256}}; }

json optional_file(const std::optional<HashedFile>& f) { return f ? to_json(*f) : json(nullptr); }

HashedFile hashed_file_from(const JsonFields& f) {
  HashedFile h;
  h.role = f.str("role");
  h.path = f.str("path");
  h.sha256 = f.str("sha256");
  if (h.sha256.size() != 64 || h.sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
    f.fail("sha256", "expected 64 lowercase hex digits");
  }
  return h;
}

std::optional<HashedFile> optional_file_from(const JsonFields& parent, const std::string& key) {
  if (parent.get(key).is_null()) return std::nullopt;  // present but null: the run had none
  return hashed_file_from(parent.object(key));
}

// An object element of an array field, as JsonFields named "key[i]".
JsonFields element(const JsonFields& f, const std::string& key, std::size_t i) {
  return JsonFields(f.array(key)[i], f.file(), f.line(), f.field_name(fmt::format("{}[{}]", key, i)));
}

}  // namespace

json to_json(const RunIdentity& id) {
  json j = json::object();
  j["schema_version"] = kRunIdentitySchemaVersion;
  j["kind"] = kKind;
  j["run_id"] = id.run_id;
  j["created_at"] = id.created_at;
  j["hostname"] = id.hostname;
  j["command"] = id.command;
  j["outputs"] = id.outputs;
  j["device"] = to_json(id.device);
  j["contracts"] = json::array();
  for (const NamedContract& c : id.contracts) {
    j["contracts"].push_back(json{{"role", c.role}, {"contract", to_json(c.contract)}});
  }
  const ClocksAtStart& k = id.clocks_at_start;
  j["clocks_at_start"] = {{"available", k.available}, {"source", k.source}, {"reason", k.reason},
                          {"sm_clock_mhz", k.sm_clock_mhz}, {"mem_clock_mhz", k.mem_clock_mhz}};
  const DeviceProcesses& p = id.device_processes_at_start;
  json procs = json::array();
  for (const DeviceProcess& d : p.processes) {
    procs.push_back({{"pid", d.pid}, {"name", d.name}, {"used_memory_bytes", d.used_memory_bytes}});
  }
  j["device_processes_at_start"] = {
      {"available", p.available}, {"source", p.source}, {"reason", p.reason}, {"processes", procs}};
  const HarnessIdentity& h = id.harness;
  j["harness"] = {{"name", "caliber"},
                  {"version", h.version},
                  {"git_revision", h.git_revision},
                  {"build_type", h.build_type},
                  {"compiler", h.compiler},
                  {"executable_sha256", h.executable_sha256}};
  j["providers"] = json::array();
  for (const HashedFile& f : id.providers) j["providers"].push_back(to_json(f));
  j["inputs"] = {{"shape_ledger", optional_file(id.shape_ledger)},
                 {"baseline_matrix", optional_file(id.baseline_matrix)}};
  if (id.run_checks) {
    const RunChecks& r = *id.run_checks;
    j["run_checks"] = {{"integrity", r.integrity}, {"input_seed", r.input_seed}, {"verification_seed", r.verification_seed}};
  }
  return j;
}

RunIdentity run_identity_from_json(const json& j, const std::string& file) {
  JsonFields root(j, file, 0, "");
  const std::int64_t version = root.integer("schema_version");
  if (version != kRunIdentitySchemaVersion) {
    root.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads {})", version,
                                            kRunIdentitySchemaVersion));
  }
  if (const std::string kind = root.str("kind"); kind != kKind) {
    root.fail("kind", fmt::format("expected '{}', got '{}'", kKind, kind));
  }
  RunIdentity id;
  id.run_id = root.str("run_id");
  id.created_at = root.str("created_at");
  id.hostname = root.str("hostname");
  id.command = root.strings("command");
  id.outputs = root.strings("outputs");
  id.device = device_from_json(root.get("device"), file, 0, "device");
  for (std::size_t i = 0; i < root.array("contracts").size(); ++i) {
    const JsonFields c = element(root, "contracts", i);
    id.contracts.push_back({c.str("role"), contract_from_json(c.get("contract"), file, 0, c.field_name("contract"))});
  }
  const JsonFields k = root.object("clocks_at_start");
  id.clocks_at_start = {k.boolean("available"), k.str("source"), k.str("reason"),
                        static_cast<int>(k.integer_in("sm_clock_mhz", -1, kMaxInt)),
                        static_cast<int>(k.integer_in("mem_clock_mhz", -1, kMaxInt))};
  const JsonFields p = root.object("device_processes_at_start");
  id.device_processes_at_start.available = p.boolean("available");
  id.device_processes_at_start.source = p.str("source");
  id.device_processes_at_start.reason = p.str("reason");
  for (std::size_t i = 0; i < p.array("processes").size(); ++i) {
    const JsonFields d = element(p, "processes", i);
    id.device_processes_at_start.processes.push_back(
        {d.integer("pid"), d.str("name"), static_cast<std::uint64_t>(d.integer_in("used_memory_bytes", 0, kMaxInt64))});
  }
  const JsonFields h = root.object("harness");
  if (const std::string name = h.str("name"); name != "caliber") h.fail("name", fmt::format("expected 'caliber', got '{}'", name));
  id.harness = {h.str("version"), h.str("git_revision"), h.str("build_type"), h.str("compiler"),
                h.str("executable_sha256")};
  for (std::size_t i = 0; i < root.array("providers").size(); ++i) {
    id.providers.push_back(hashed_file_from(element(root, "providers", i)));
  }
  const JsonFields inputs = root.object("inputs");
  id.shape_ledger = optional_file_from(inputs, "shape_ledger");
  id.baseline_matrix = optional_file_from(inputs, "baseline_matrix");
  if (root.has("run_checks")) {
    const JsonFields r = root.object("run_checks");
    const json& seed = r.get("input_seed");
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0)) {
      r.fail("input_seed", "expected an unsigned 64-bit integer");
    }
    id.run_checks = RunChecks{r.str("integrity"), seed.get<std::uint64_t>(), r.str("verification_seed")};
  }
  return id;
}

void write_run_identity(const std::string& path, const RunIdentity& identity) {
  write_file_atomically(path, [&](std::ostream& out) { out << to_json(identity).dump(2) << '\n'; });
}

RunIdentity read_run_identity(const std::string& path) {
  const std::string text = read_text_file(path);
  // A wrong field names its line as well (the reader knows only the field).
  return with_json_lines(text, path, [&] { return run_identity_from_json(parse_json_document(text, path), path); });
}

std::string sidecar_identity_path(const std::string& results_file) {
  const fs::path p(results_file);
  return (p.parent_path() / (p.stem().string() + ".run_identity.json")).string();
}

std::string run_identity_path_for(const std::string& run) {
  std::error_code ec;
  if (fs::is_directory(run, ec)) return (fs::path(run) / kRunIdentityFileName).string();
  const std::string sidecar = sidecar_identity_path(run);
  if (fs::exists(sidecar, ec)) return sidecar;
  return (fs::path(run).parent_path() / kRunIdentityFileName).string();
}

std::optional<RunIdentity> find_run_identity(const std::string& run, std::string* why_missing) {
  std::error_code ec;
  if (!fs::exists(run, ec)) {
    if (why_missing) *why_missing = fmt::format("{} does not exist", run);
    return std::nullopt;
  }
  const std::string path = run_identity_path_for(run);
  if (!fs::exists(path, ec)) {
    if (why_missing) *why_missing = fmt::format("no {} for {}", fs::path(path).filename().string(), run);
    return std::nullopt;
  }
  RunIdentity id = read_run_identity(path);
  // A directory's identity describes a results file only when it lists it: another run's file
  // dropped into the directory must not borrow its identity.
  if (!fs::is_directory(run, ec) && path != sidecar_identity_path(run)) {
    const std::string name = fs::path(run).filename().string();
    if (std::find(id.outputs.begin(), id.outputs.end(), name) == id.outputs.end()) {
      if (why_missing) *why_missing = fmt::format("{} does not list {} among its outputs", path, name);
      return std::nullopt;
    }
  }
  return id;
}

}  // namespace caliber
