#include "bisect/bisect_record.h"

#include <ostream>

#include "core/atomic_file.h"

namespace caliber::bisect {
namespace {

using nlohmann::json;

json commit_json(const CommitInfo& c) { return {{"commit", c.sha}, {"subject", c.subject}}; }

json tested_json(const TestedCommit& t) {
  json j = commit_json(t.commit);
  j["verdict"] = std::string(to_string(t.verdict));
  j["detail"] = t.detail;
  j["results"] = t.results.empty() ? json(nullptr) : json(t.results);
  return j;
}

json evidence_json(const BisectRecord& r) {
  if (!r.last_good || !r.first_bad) return nullptr;
  return {{"last_good", tested_json(*r.last_good)},
          {"first_bad", tested_json(*r.first_bad)},
          {"comparison", r.comparison}};
}

}  // namespace

json bisect_json(const BisectRecord& r) {
  json steps = json::array();
  for (const TestedCommit& s : r.steps) steps.push_back(tested_json(s));
  json candidates = json::array();
  for (const CommitInfo& c : r.candidates) candidates.push_back(commit_json(c));
  return {{"kind", "caliber.bisect"},
          {"schema_version", kBisectSchemaVersion},
          {"repo", r.repo},
          {"commands", {{"build", r.commands.build}, {"run", r.commands.run}}},
          {"thresholds", r.thresholds_file.empty() ? json(nullptr) : json(r.thresholds_file)},
          {"good", tested_json(r.good)},
          {"bad", tested_json(r.bad)},
          {"regressed_rows", r.regressed_rows},
          {"steps", steps},
          {"first_bad", r.candidates.size() == 1 ? commit_json(r.candidates.front()) : json(nullptr)},
          {"candidates", candidates},
          {"evidence", evidence_json(r)}};
}

void write_bisect_record(const std::string& path, const BisectRecord& record) {
  const json doc = bisect_json(record);
  // A commit subject is not always UTF-8: replaced, never a reason to lose the record.
  const std::string text = doc.dump(2, ' ', false, json::error_handler_t::replace);
  write_file_atomically(path, [&](std::ostream& out) { out << text << '\n'; });
}

}  // namespace caliber::bisect
