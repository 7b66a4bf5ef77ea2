#include "campaign/receipts.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "caliber/run_identity.h"
#include "core/json_fields.h"
#include "core/sha256.h"
#include "core/utc_time.h"
#include "fingerprint/code_fingerprint.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kReceiptKind = "caliber.cell_receipt";
constexpr const char* kSealKind = "caliber.campaign_seal";

std::string shape_hex(const std::string& shape_id) {
  const auto colon = shape_id.find(':');
  return colon == std::string::npos ? shape_id : shape_id.substr(colon + 1);
}

json provider_entry(const Manifest& m, const std::string& op, const std::string& provider) {
  for (const json& p : m.frozen.at("providers")) {
    if (p.at("op") == op && p.at("name") == provider) return p;
  }
  return nullptr;
}

std::string matrix_sha(const Manifest& m, const std::string& op) {
  for (const json& x : m.frozen.at("matrices")) {
    if (x.at("op") == op) return x.at("sha256").get<std::string>();
  }
  return {};
}

json make_receipt(const Manifest& m, const ShardWork& shard, const CellLine& r, int attempts,
                  const std::optional<CodeFingerprint>& code, const std::string& code_missing,
                  const std::optional<RunIdentity>& identity) {
  const ShapeRow* shape = nullptr;
  for (const ShapeRow& s : shard.shapes) {
    if (s.shape_id == r.shape_id) shape = &s;
  }
  const json provider = provider_entry(m, shard.op, r.provider);
  json code_json = nullptr;
  if (code) {
    json objects = json::array();
    for (const CodeObjectHash& c : code->code) {
      if (c.name == r.provider || c.name == "caliber") objects.push_back({{"name", c.name}, {"sha256", c.sha256}});
    }
    code_json = {{"digest", code->digest()}, {"source", code->source}, {"objects", objects},
                 {"unresolved", code->unresolved}};
  }
  json harness = nullptr;
  if (identity) {
    harness = {{"version", identity->harness.version},
               {"git_revision", identity->harness.git_revision},
               {"build_type", identity->harness.build_type},
               {"executable_sha256", identity->harness.executable_sha256}};
  }
  json receipt = {
      {"kind", kReceiptKind},
      {"schema_version", 1},
      {"campaign", {{"run_id", m.frozen.at("run_id")}, {"manifest_sha256", m.sha256}}},
      {"cell",
       {{"op", shard.op}, {"shape_id", r.shape_id}, {"provider", r.provider}, {"shard", shard.name},
        {"device", shard.device}}},
      {"inputs",
       {{"shape_ledger_sha256", m.frozen.at("shape_ledger").at("sha256")},
        {"shape_row_sha256", shape ? json(sha256_hex(canonical_identity(*shape))) : json(nullptr)},
        {"baseline_matrix_sha256", matrix_sha(m, shard.op)},
        {"provider_library_sha256", provider.is_object() ? provider.at("library_sha256") : json(nullptr)},
        {"seeds", m.frozen.at("seeds")}}},
      {"code_fingerprint", code_json},
      {"code_fingerprint_missing", code ? json(nullptr) : json(code_missing)},
      {"harness", harness},
      {"result",
       {{"benchmark_status", std::string(to_string(r.status))},
        {"status_reason", r.status_reason ? json(*r.status_reason) : json(nullptr)},
        {"median_us", r.median_us ? json(*r.median_us) : json(nullptr)},
        {"integrity", std::string(to_string(r.integrity))},
        {"row_sha256", r.row_sha256},
        {"results_file", kBenchmarkResultsFileName}}},
      {"attempts_this_session", attempts},
  };
  receipt["receipt_sha256"] = receipt_sha256(receipt);
  return receipt;
}

std::string file_sha_or_empty(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec) ? sha256_file_hex(path) : std::string();
}

}  // namespace

std::string receipt_relative_path(const std::string& op, const std::string& shape_id, const std::string& provider) {
  return fmt::format("{}/{}/{}.{}.json", kReceiptsDirName, op, shape_hex(shape_id), provider);
}

std::string receipt_sha256(json receipt) {
  receipt.erase("receipt_sha256");
  return sha256_hex(receipt.dump());
}

void write_receipts(const Manifest& m, const std::vector<ShardWork>& shards, const MergedResults& merged,
                    const std::map<std::string, int>& attempts, const std::optional<std::string>& only_shard) {
  std::map<std::string, const ShardWork*> by_name;
  for (const ShardWork& s : shards) by_name[s.name] = &s;
  std::map<std::string, std::pair<std::optional<CodeFingerprint>, std::string>> code;
  std::map<std::string, std::optional<RunIdentity>> identity;
  for (const ShardWork& s : shards) {
    if (only_shard && s.name != *only_shard) continue;
    const fs::path fp = fs::path(s.dir) / kCodeFingerprintFileName;
    std::error_code ec;
    if (fs::exists(fp, ec)) {
      code[s.name] = {read_code_fingerprint(fp.string()), ""};
    } else {
      code[s.name] = {std::nullopt, fmt::format("shard {} wrote no {}", s.name, kCodeFingerprintFileName)};
    }
    std::string why;
    identity[s.name] = find_run_identity(s.dir, &why);
  }
  for (const CellLine& l : merged.lines) {
    const std::string key = l.cell();
    const ShardWork& shard = *by_name.at(merged.shard_of_cell.at(key));
    if (only_shard && shard.name != *only_shard) continue;
    const auto a = attempts.find(key);
    const json receipt = make_receipt(m, shard, l, a == attempts.end() ? 0 : a->second, code[shard.name].first,
                                      code[shard.name].second, identity[shard.name]);
    const fs::path path = fs::path(m.dir) / receipt_relative_path(shard.op, l.shape_id, l.provider);
    fs::create_directories(path.parent_path());
    std::error_code ec;
    if (fs::exists(path, ec) && read_text_file(path.string()) == receipt.dump(2) + "\n") continue;
    write_file_atomically(path.string(), [&](std::ostream& out) { out << receipt.dump(2) << '\n'; });
  }
}

void write_seal(const Manifest& m, const MergedResults& merged) {
  json receipts = json::object();
  std::map<std::string, std::size_t> statuses;
  for (const CellLine& l : merged.lines) {
    const std::string rel = receipt_relative_path(l.op, l.shape_id, l.provider);
    receipts[rel] = sha256_file_hex((fs::path(m.dir) / rel).string());
    ++statuses[std::string(to_string(l.status))];
  }
  json seal = {{"kind", kSealKind},
               {"schema_version", 1},
               {"run_id", m.frozen.at("run_id")},
               {"manifest_sha256", m.sha256},
               {"results_sha256", sha256_file_hex((fs::path(m.dir) / kBenchmarkResultsFileName).string())},
               {"cells", merged.lines.size()},
               {"statuses", statuses},
               {"receipts", receipts},
               {"sealed_at", utc_timestamp_now()}};
  json bound = seal;
  bound.erase("sealed_at");
  seal["seal_sha256"] = sha256_hex(bound.dump());
  write_file_atomically((fs::path(m.dir) / kSealFileName).string(), [&](std::ostream& out) { out << seal.dump(2) << '\n'; });
}

namespace {

// The campaign's ledger must be the frozen one; a matrix changed since is only a warning (the
// receipts keep the frozen hash).
void check_frozen_inputs(const Manifest& m, const std::string& dir, Verification& v) {
  const std::string ledger_sha = file_sha_or_empty((fs::path(dir) / kCampaignLedgerPath).string());
  if (ledger_sha != m.frozen.at("shape_ledger").at("sha256").get<std::string>()) {
    v.problems.push_back(fmt::format("{}: SHA-256 {} is not the manifest's {}", kCampaignLedgerPath, ledger_sha,
                                     m.frozen.at("shape_ledger").at("sha256").get<std::string>()));
  }
  for (const json& x : m.frozen.at("matrices")) {
    const std::string now = file_sha_or_empty(x.at("path").get<std::string>());
    if (now != x.at("sha256").get<std::string>()) {
      v.problems.push_back(fmt::format("warning: matrix {} changed since the campaign was frozen (the receipts keep "
                                       "the frozen hash)", x.at("path").get<std::string>()));
    }
  }
}

// Every cell the manifest plans: "<shape_id>/<provider>" for each shard's shapes and its op's providers.
std::set<std::string> planned_cells(const Manifest& m) {
  std::set<std::string> planned;
  for (const json& s : m.frozen.at("shards")) {
    for (const json& id : s.at("shape_ids")) {
      for (const json& p : m.frozen.at("providers")) {
        if (p.at("op") == s.at("op")) planned.insert(id.get<std::string>() + "/" + p.at("name").get<std::string>());
      }
    }
  }
  return planned;
}

// What is wrong with the receipt at `path` of the row `l`, or "" when it verifies: it exists, is
// unedited, and names this manifest, this very row, the manifest's harness and ledger.
std::string receipt_problem(const fs::path& path, const CellLine& l, const Manifest& m,
                            const std::string& harness_sha, Verification& v) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return fmt::format("no receipt ({})", path.string());
  const json r = parse_json_document(read_text_file(path.string()), path.string());
  ++v.receipts_checked;
  if (!r.contains("receipt_sha256") || r.at("receipt_sha256") != receipt_sha256(r)) {
    return fmt::format("receipt {} was edited (receipt_sha256 does not match its content)", path.string());
  }
  if (r.at("campaign").at("manifest_sha256") != m.sha256) {
    return fmt::format("receipt {} is of another manifest", path.string());
  }
  if (r.at("result").at("row_sha256") != l.row_sha256) {
    return fmt::format("the row in {} is not the row its receipt records (edited after it was measured)",
                       kBenchmarkResultsFileName);
  }
  if (!r.at("harness").is_object() || r.at("harness").at("executable_sha256") != harness_sha) {
    return fmt::format("receipt {}: measured by another harness than the manifest's", path.string());
  }
  if (r.at("inputs").at("shape_ledger_sha256") != m.frozen.at("shape_ledger").at("sha256")) {
    return fmt::format("receipt {}: another ledger than the manifest's", path.string());
  }
  return "";
}

// campaign_seal.json, when there is one: unedited, of this manifest, and every file it seals
// unchanged. A receipt rewritten after the seal (even one whose content hash still matches) no
// longer proves its cell: the cell gets a problem of its own, so re-accounting demotes it.
void check_seal(const std::string& dir, const Manifest& m, const std::map<std::string, std::string>& cell_of_receipt,
                Verification& v) {
  const fs::path seal_path = fs::path(dir) / kSealFileName;
  std::error_code ec;
  if (!fs::exists(seal_path, ec)) return;
  v.sealed = true;
  json seal = parse_json_document(read_text_file(seal_path.string()), seal_path.string());
  json bound = seal;
  bound.erase("sealed_at");
  bound.erase("seal_sha256");
  if (seal.value("seal_sha256", "") != sha256_hex(bound.dump())) v.problems.push_back("campaign_seal.json was edited");
  if (seal.value("manifest_sha256", "") != m.sha256) v.problems.push_back("campaign_seal.json seals another manifest");
  if (seal.value("results_sha256", "") != file_sha_or_empty((fs::path(dir) / kBenchmarkResultsFileName).string())) {
    v.problems.push_back(fmt::format("{} changed after the campaign was sealed", kBenchmarkResultsFileName));
  }
  if (!seal.contains("receipts")) return;
  for (auto it = seal.at("receipts").begin(); it != seal.at("receipts").end(); ++it) {
    if (file_sha_or_empty((fs::path(dir) / it.key()).string()) == it.value().get<std::string>()) continue;
    v.problems.push_back(fmt::format("{} changed after the campaign was sealed", it.key()));
    const auto cell = cell_of_receipt.find(it.key());
    if (cell != cell_of_receipt.end() && !v.cell_problems.count(cell->second)) {
      v.cell_problems[cell->second] = fmt::format("{} changed after the campaign was sealed", it.key());
    }
  }
}

// The rows now in the shards' results (the manifest names each shard's folder and op), by the
// path of the receipt each one would have.
std::map<std::string, std::pair<std::string, CellLine>> rows_by_receipt(const Manifest& m) {
  std::map<std::string, std::pair<std::string, CellLine>> rows;
  for (const json& s : m.frozen.at("shards")) {
    const std::string name = s.at("name").get<std::string>(), op = s.at("op").get<std::string>();
    const fs::path results = fs::path(m.dir) / s.at("dir").get<std::string>() / kBenchmarkResultsFileName;
    for (CellLine& l : read_cell_lines(results.string())) {
      std::string rel = receipt_relative_path(op, l.shape_id, l.provider);
      rows.insert_or_assign(std::move(rel), std::make_pair(name, std::move(l)));
    }
  }
  return rows;
}

// What is wrong with the receipt at `rel` for a resume, or "".
std::string resume_problem(const Manifest& m, const std::string& rel,
                           const std::map<std::string, std::pair<std::string, CellLine>>& rows) {
  const std::string path = (fs::path(m.dir) / rel).string();
  const json r = parse_json_document(read_text_file(path), path);
  if (!r.contains("receipt_sha256") || r.at("receipt_sha256") != receipt_sha256(r)) {
    return fmt::format("receipt {} was edited (receipt_sha256 does not match its content)", rel);
  }
  if (r.at("campaign").at("manifest_sha256") != m.sha256) return fmt::format("receipt {} is of another manifest", rel);
  const std::string status = r.at("result").at("benchmark_status").get<std::string>();
  if (status == to_string(BenchmarkStatus::failed)) return "";  // a retry replaces a failed row
  const auto row = rows.find(rel);
  if (row == rows.end()) {
    return fmt::format("receipt {} records a {} row that is no longer in its shard's {}", rel, status,
                       kBenchmarkResultsFileName);
  }
  if (r.at("result").at("row_sha256") != row->second.second.row_sha256) {
    return fmt::format("the row of {} in shard {}'s {} is not the row its receipt {} records (edited after it "
                       "was measured)",
                       row->second.second.cell(), row->second.first,
                       kBenchmarkResultsFileName, rel);
  }
  return "";
}

}  // namespace

std::vector<std::string> resume_problems(const Manifest& m) {
  std::vector<std::string> problems;
  const fs::path receipts = fs::path(m.dir) / kReceiptsDirName;
  std::error_code ec;
  if (!fs::is_directory(receipts, ec)) return problems;
  const auto rows = rows_by_receipt(m);
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(receipts)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(fs::relative(e.path(), m.dir).string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& rel : files) {
    if (std::string p = resume_problem(m, rel, rows); !p.empty()) problems.push_back(std::move(p));
  }
  return problems;
}

Verification verify_campaign(const std::string& dir) {
  Verification v;
  const Manifest m = read_manifest(dir);  // an edited manifest is an InputError (exit 2)
  check_frozen_inputs(m, dir, v);
  // Every row of the merged results has a receipt that verifies and names this line.
  const std::vector<CellLine> lines = read_cell_lines((fs::path(dir) / kBenchmarkResultsFileName).string());
  const std::set<std::string> planned = planned_cells(m);
  std::set<std::string> seen;
  std::map<std::string, std::string> cell_of_receipt;  // receipt path relative to dir -> cell
  const std::string harness_sha = m.frozen.at("harness").at("executable_sha256").get<std::string>();
  for (const CellLine& l : lines) {
    const std::string key = l.cell();
    seen.insert(key);
    if (!planned.count(key)) v.problems.push_back(fmt::format("{}: a row for a cell the manifest does not plan", key));
    const std::string receipt_rel = receipt_relative_path(l.op, l.shape_id, l.provider);
    cell_of_receipt[receipt_rel] = key;
    const std::string bad = receipt_problem(fs::path(dir) / receipt_rel, l, m, harness_sha, v);
    if (!bad.empty()) {
      v.cell_problems[key] = bad;
      v.problems.push_back(fmt::format("{}: {}", key, bad));
    }
  }
  for (const std::string& key : planned) {
    if (!seen.count(key)) v.problems.push_back(fmt::format("{}: planned, but has no row", key));
  }
  check_seal(dir, m, cell_of_receipt, v);
  // The shards' rows too: one edited after its receipt was written is not merged yet, but a
  // resume would refuse the campaign for it.
  for (std::string& p : resume_problems(m)) v.problems.push_back("shards: " + p);
  return v;
}

}  // namespace caliber::campaign
