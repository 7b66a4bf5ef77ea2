#include "campaign/campaign_manifest.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "matrix/baseline_matrix.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "core/json_fields.h"
#include "core/sha256.h"
#include "core/subprocess.h"
#include "io/shape_ledger_json.h"

namespace caliber::campaign {
namespace {

// What the manifest says of the verification seed: never the seed itself, which the measured code
// could read here (docs/integrity.md, "Random choices, recorded"). "drawn": each shard's run draws
// its own; a pinned one, by its SHA-256, so a resume can check it is given the same.
std::string verification_seed_record(std::uint64_t seed) {
  return seed == 0 ? std::string("drawn") : "sha256:" + sha256_hex(fmt::format("{:016x}", seed));
}

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKind = "caliber.campaign_manifest";
constexpr int kSchemaVersion = 1;

}  // namespace

HarnessFingerprint this_harness() {
  HarnessFingerprint h;
  h.version = CALIBER_VERSION;
  h.git_revision = CALIBER_GIT_REVISION;
  h.build_type = CALIBER_BUILD_TYPE;
  h.executable = self_executable();
  h.executable_sha256 = sha256_file_hex(h.executable);
  return h;
}

namespace {

// --shape-ledger's files (comma-separated) as given to the campaign: absolute path and SHA-256.
json ledgers_json(const std::string& text) {
  json ledgers = json::array();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string file = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    ledgers.push_back({{"path", fs::absolute(file).string()}, {"sha256", sha256_file_hex(file)}});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ledgers;
}

// Each op's matrix (path and SHA-256) into `matrices`, and its providers into `providers`: whether
// enabled and selected, the entrypoint, and the library an enabled plugin loads with its SHA-256.
void jobs_json(const CampaignPlan& plan, json& matrices, json& providers) {
  for (const CampaignJob& job : plan.jobs) {
    matrices.push_back({{"op", job.op},
                        {"path", fs::absolute(job.baseline_matrix).string()},
                        {"sha256", sha256_file_hex(job.baseline_matrix)}});
    for (const MatrixProvider& p : job.plan.matrix.providers) {
      json entry = {{"op", job.op}, {"name", p.name}, {"enabled", p.enabled},
                    {"selected", job.plan.selected_provider(p.name)},
                    {"entrypoint", p.entrypoint ? json(p.entrypoint->text) : json(nullptr)},
                    {"library", nullptr}, {"library_sha256", nullptr}};
      if (p.enabled && p.entrypoint && p.entrypoint->loaded_from_file()) {
        const std::string lib = resolved_library(*p.entrypoint, job.plan.matrix.file);
        entry["library"] = lib;
        entry["library_sha256"] = sha256_file_hex(lib);
      }
      providers.push_back(entry);
    }
  }
}

// Each shard: its op, device, directory, cells, shapes and the exact caliber run arguments.
json shards_json(const BatchOptions& o, const CampaignPlan& plan, const std::string& run_id) {
  json shards = json::array();
  for (const CampaignShard& s : plan.shards) {
    const CampaignJob& job = plan.jobs[s.job];
    json ids = json::array();
    for (std::size_t i : s.shapes) ids.push_back(job.plan.shapes[i].shape_id);
    shards.push_back({{"name", s.name},
                      {"op", job.op},
                      {"shard", to_string(s.spec)},
                      {"device", s.device},
                      {"dir", s.dir},
                      {"cells", s.cells},
                      {"runnable_cells", s.runnable_cells},
                      {"shape_ids", ids},
                      {"run_arguments", caliber_run_arguments(shard_run_options(o, plan, s, run_id))}});
  }
  return shards;
}

json canary_json(const BatchOptions& o, const CampaignPlan& plan, const std::string& run_id) {
  const CampaignJob& canary_job = plan.jobs[plan.canary.job];
  return {{"op", canary_job.op},
          {"shape_id", plan.canary.shape_id},
          {"provider", plan.canary.provider},
          {"device", plan.devices.front()},
          {"dir", kCanaryDirName},
          {"run_arguments",
           caliber_run_arguments(canary_run_options(o, plan, (fs::absolute(plan.out) / kCanaryDirName).string(),
                                                    run_id + "-canary"))}};
}

json harness_json(const HarnessFingerprint& harness) {
  return {{"version", harness.version},
          {"git_revision", harness.git_revision},
          {"build_type", harness.build_type},
          {"executable", harness.executable},
          {"executable_sha256", harness.executable_sha256}};
}

}  // namespace

json make_frozen_manifest(const BatchOptions& o, const CampaignPlan& plan, const std::string& backend,
                          const std::string& run_id, const HarnessFingerprint& harness) {
  const json ledgers = ledgers_json(o.run.shape_ledger);
  json matrices = json::array(), providers = json::array();
  jobs_json(plan, matrices, providers);
  const json shards = shards_json(o, plan, run_id);
  runner::RunOptions contract_options = o.run;
  const runner::RunContracts contracts = runner::make_run_contracts(contract_options, parse_backend(backend));
  json ops = json::array();
  for (const CampaignJob& j : plan.jobs) ops.push_back(j.op);
  return {
      {"run_id", run_id},
      {"backend", backend},
      {"devices", plan.devices},
      {"ops", ops},
      {"ledgers", ledgers},
      {"shape_ledger", {{"path", kCampaignLedgerPath}, {"sha256", sha256_file_hex(plan.shape_ledger)}}},
      {"matrices", matrices},
      {"providers", providers},
      {"contracts",
       json::array({{{"role", "kernel_only"}, {"contract", to_json(contracts.kernel_only)}},
                    {{"role", "eager"}, {"contract", to_json(contracts.eager)}}})},
      {"auto_graph_calls", contracts.auto_graph_calls},
      {"seeds", {{"inputs", o.run.seed}, {"verification", verification_seed_record(o.run.verification_seed)}}},
      {"candidate_commit", o.run.candidate_commit.value_or(CALIBER_GIT_REVISION)},
      {"shards", shards},
      {"cells", plan.cells()},
      {"canary", canary_json(o, plan, run_id)},
      {"policy",
       {{"retries", o.retries},
        {"shard_timeout_s", o.shard_timeout_s},
        {"kill_after_s", o.kill_after_s},
        {"cell_timeout_s", o.run.cell_timeout_s}}},
      {"harness", harness_json(harness)},
  };
}

std::string manifest_sha256(const json& frozen) { return sha256_hex(frozen.dump()); }

void write_manifest(const std::string& dir, const Manifest& m) {
  const json doc = {{"kind", kKind},           {"schema_version", kSchemaVersion}, {"manifest_sha256", m.sha256},
                    {"created_at", m.created_at}, {"command", m.command},           {"frozen", m.frozen}};
  write_file_atomically((fs::path(dir) / kManifestFileName).string(),
                        [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
}

Manifest read_manifest(const std::string& dir) {
  const std::string file = (fs::path(dir) / kManifestFileName).string();
  const json doc = parse_json_document(read_text_file(file), file);
  const JsonFields root(doc, file, 0, "");  // an object, or an InputError
  if (!root.has("kind") || !root.get("kind").is_string() || root.str("kind") != kKind) {
    root.fail("kind", "not a caliber campaign manifest");
  }
  if (root.integer("schema_version") != kSchemaVersion) {
    root.fail("schema_version", fmt::format("unknown version (this caliber reads {})", kSchemaVersion));
  }
  Manifest m;
  m.dir = dir;
  m.frozen = root.object("frozen").json();
  m.sha256 = root.str("manifest_sha256");
  m.created_at = root.str("created_at");
  m.command = root.strings("command");
  if (manifest_sha256(m.frozen) != m.sha256) {
    throw InputError(file, 0, "manifest_sha256",
                     "does not match the SHA-256 of `frozen`: the manifest was edited after it was frozen");
  }
  return m;
}

std::string first_difference(const json& a, const json& b, const std::string& path) {
  if (a == b) return {};
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return path + "." + it.key();
      if (auto d = first_difference(it.value(), b.at(it.key()), path + "." + it.key()); !d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) return path + "." + it.key();
    }
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (auto d = first_difference(a[i], b[i], fmt::format("{}[{}]", path, i)); !d.empty()) return d;
    }
  }
  return path;
}

std::vector<ShardWork> manifest_shards(const Manifest& m) {
  const std::string ledger = (fs::path(m.dir) / kCampaignLedgerPath).string();
  std::map<std::string, ShapeRow> rows;
  for (ShapeRow& r : read_shape_ledger(ledger)) rows.emplace(r.shape_id, std::move(r));
  std::map<std::string, std::vector<std::string>> providers_of;
  for (const json& p : m.frozen.at("providers")) {
    providers_of[p.at("op").get<std::string>()].push_back(p.at("name").get<std::string>());
  }
  std::vector<ShardWork> out;
  for (const json& s : m.frozen.at("shards")) {
    ShardWork w;
    w.name = s.at("name").get<std::string>();
    w.dir = (fs::absolute(m.dir) / s.at("dir").get<std::string>()).string();
    w.op = s.at("op").get<std::string>();
    w.capture_denied_file = (fs::absolute(m.dir) / fmt::format("capture_denied.{}.tsv", w.op)).string();
    w.device = s.at("device").get<int>();
    w.run_arguments = s.at("run_arguments").get<std::vector<std::string>>();
    for (const json& id : s.at("shape_ids")) {
      const auto it = rows.find(id.get<std::string>());
      if (it == rows.end()) {
        throw InputError(ledger, 0, "shape_id", fmt::format("{} of shard {} is not in the campaign's ledger",
                                                            id.get<std::string>(), w.name));
      }
      w.shapes.push_back(it->second);
    }
    w.providers = providers_of[w.op];
    w.candidate_commit = m.frozen.at("candidate_commit").get<std::string>();
    out.push_back(std::move(w));
  }
  return out;
}

RetryPolicy manifest_policy(const Manifest& m) {
  const json& p = m.frozen.at("policy");
  return {p.at("retries").get<int>(), p.at("shard_timeout_s").get<double>(), p.at("kill_after_s").get<double>(),
          p.at("cell_timeout_s").get<double>()};
}

}  // namespace caliber::campaign
