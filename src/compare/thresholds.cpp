#include "compare/thresholds.h"

#include <fnmatch.h>

#include <optional>

#include <fmt/format.h>

#include "caliber/contract.h"
#include "caliber/errors.h"
#include "core/contract_fields.h"
#include "core/json_fields.h"
#include "core/json_line_index.h"

namespace caliber::compare {
namespace {

using nlohmann::json;

void require_known_keys(const JsonFields& f, std::initializer_list<const char*> known) {
  for (auto it = f.json().begin(); it != f.json().end(); ++it) {
    bool ok = false;
    std::string expected;
    for (const char* k : known) {
      ok = ok || it.key() == k;
      expected += (expected.empty() ? "" : ", ") + std::string(k);
    }
    if (!ok) f.fail(it.key(), fmt::format("unknown key (expected one of: {})", expected));
  }
}

PracticalThreshold practical_threshold(const JsonFields& f) {
  return {f.non_negative("relative_pct"), f.non_negative("absolute_us")};
}

std::string non_empty_string(const JsonFields& f, const std::string& key) {
  std::string s = f.str(key);
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) f.fail(key, "must not be empty");
  return s;
}

// Contract selection values are checked with caliber's own parsers, so a typo is refused
// instead of silently matching nothing.
std::string contract_selection_value(const JsonFields& f, const std::string& key) {
  return f.parse(key, [&](const std::string& s) { return canonical_field_text(*find_contract_field(key), s); });
}

// Why `pattern` is not a glob fnmatch(3) reads as written: a '[' with no ']' to close it, or a
// '\\' with nothing after it (fnmatch would match them as literal text, so the rule would
// quietly match no row).
std::optional<std::string> glob_problem(const std::string& pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (i + 1 == pattern.size()) return "ends with '\\', which escapes nothing";
      ++i;
    } else if (pattern[i] == '[') {
      std::size_t j = i + 1;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;  // a ']' first is a member
      const std::size_t close = pattern.find(']', j);
      if (close == std::string::npos) {
        return fmt::format("the '[' at character {} is not closed by a ']' (a glob: * ? [abc] [!abc])", i + 1);
      }
      i = close;
    }
  }
  return std::nullopt;
}

GateRule parse_rule(const JsonFields& f, const std::string& arch, std::size_t index) {
  require_known_keys(f, {"name", "params", "contract", "relative_pct", "absolute_us", "calibration"});
  GateRule r;
  r.arch = arch;
  r.index = index;
  r.name = non_empty_string(f, "name");
  if (const auto problem = glob_problem(r.name)) f.fail("name", *problem);
  if (f.has("params")) {
    const JsonFields p = f.object("params");
    for (auto it = p.json().begin(); it != p.json().end(); ++it) {
      if (it->is_object() || it->is_array() || it->is_null()) {
        p.fail(it.key(), "expected a string, number or boolean to match");
      }
    }
    r.params = p.json();
  }
  if (f.has("contract")) {
    const JsonFields c = f.object("contract");
    require_known_keys(c, {"quantity", "instrument", "schedule", "cache", "statistic"});
    for (auto it = c.json().begin(); it != c.json().end(); ++it) {
      r.contract[it.key()] = contract_selection_value(c, it.key());
    }
  }
  r.threshold = practical_threshold(f);
  r.calibration = non_empty_string(f, "calibration");
  return r;
}

}  // namespace

bool GateRule::matches(const CompareRow& row) const {
  if (fnmatch(name.c_str(), row.name.c_str(), 0) != 0) return false;
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (!row.params.contains(it.key()) || row.params.at(it.key()) != *it) return false;
  }
  for (const auto& [field, value] : contract) {
    if (row.contract[field] != value) return false;
  }
  return true;
}

std::string GateRule::describe() const { return fmt::format("{} rule {} ({})", arch, index, name); }

const GateRule* Thresholds::rule_for(const CompareRow& row, const std::string& arch) const {
  const auto it = architectures.find(arch);
  if (it == architectures.end()) return nullptr;
  for (const GateRule& r : it->second.rules) {
    if (r.matches(row)) return &r;
  }
  return nullptr;
}

Thresholds parse_thresholds(const std::string& text, const std::string& file) {
  const json doc = parse_json_document(text, file);  // refuses a duplicate key with its line
  const JsonLineIndex index(text);
  Thresholds t = with_json_lines(text, file, [&] {
    const JsonFields root(doc, file, 0, "");
    require_known_keys(root, {"schema_version", "kind", "description", "statistics", "report_only",
                              "architectures"});
    require_document_header(root, "caliber.thresholds", kThresholdsSchemaVersion);
    if (root.has("description")) root.str("description");
    Thresholds out;
    out.file = file;
    if (root.has("statistics")) {
      const JsonFields s = root.object("statistics");
      require_known_keys(s, {"alpha", "min_samples"});
      if (s.has("alpha")) {
        out.statistics.alpha = s.number("alpha");
        if (!(out.statistics.alpha > 0 && out.statistics.alpha < 1)) {
          s.fail("alpha", fmt::format("must be in (0, 1) (got {})", out.statistics.alpha));
        }
      }
      if (s.has("min_samples")) {
        out.statistics.min_samples = s.integer("min_samples");
        if (out.statistics.min_samples < 2) {
          s.fail("min_samples", fmt::format("must be >= 2 (got {})", out.statistics.min_samples));
        }
      }
    }
    if (root.has("report_only")) {
      const JsonFields r = root.object("report_only");
      require_known_keys(r, {"relative_pct", "absolute_us"});
      out.report_only = practical_threshold(r);
    }
    const JsonFields archs = root.object("architectures");
    for (auto it = archs.json().begin(); it != archs.json().end(); ++it) {
      const JsonFields a = archs.object(it.key());
      require_known_keys(a, {"calibration", "rules"});
      ArchitectureRules rules;
      if (a.has("calibration")) rules.calibration = a.str("calibration");
      const json& list = a.array("rules");
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = a.field_name(fmt::format("rules[{}]", i));
        GateRule rule = parse_rule(JsonFields(list[i], file, 0, path), it.key(), i);
        rule.line = index.line_of(path);
        rules.rules.push_back(std::move(rule));
      }
      out.architectures.emplace(it.key(), std::move(rules));
    }
    return out;
  });
  return t;
}

Thresholds read_thresholds(const std::string& file) { return parse_thresholds(read_text_file(file), file); }

}  // namespace caliber::compare
