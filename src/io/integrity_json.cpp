// The integrity record as JSON: {"verdict", "verification_seed", "checks": [{"name", "outcome",
// "detail"}]} (docs/integrity.md). The verdict is derived from the checks and re-derived on
// reading: a file cannot claim a better verdict than its checks support.
#include <fmt/format.h>

#include "caliber/result_json.h"
#include "core/json_fields.h"

namespace caliber {

nlohmann::json to_json(const Integrity& integrity) {
  nlohmann::json checks = nlohmann::json::array();
  for (const IntegrityCheck& c : integrity.checks) {
    checks.push_back({{"name", c.name}, {"outcome", std::string(to_string(c.outcome))}, {"detail", c.detail}});
  }
  nlohmann::json j = {{"verdict", std::string(to_string(integrity.verdict()))}, {"checks", std::move(checks)}};
  j["verification_seed"] = integrity.verification_seed ? nlohmann::json(fmt::format("{:016x}", *integrity.verification_seed))
                                                       : nlohmann::json(nullptr);
  return j;
}

Integrity integrity_from_json(const nlohmann::json& j, const std::string& file, long line, const std::string& path) {
  const JsonFields f(j, file, line, path);
  Integrity integrity;
  const nlohmann::json& checks = f.array("checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const JsonFields c(checks[i], file, line, f.field_name("checks") + fmt::format("[{}]", i));
    IntegrityCheck check;
    check.name = c.str("name");
    check.outcome = c.parse("outcome", [](const std::string& s) { return parse_check_outcome(s); });
    check.detail = c.str("detail");
    integrity.checks.push_back(std::move(check));
  }
  if (const auto seed = f.opt_str("verification_seed")) {
    try {
      std::size_t used = 0;
      integrity.verification_seed = std::stoull(*seed, &used, 16);
      if (used != seed->size() || seed->empty()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      f.fail("verification_seed", fmt::format("expected 16 hex digits, got '{}'", *seed));
    }
  }
  const IntegrityVerdict claimed =
      f.parse("verdict", [](const std::string& s) { return parse_integrity_verdict(s); });
  if (claimed != integrity.verdict()) {
    f.fail("verdict", fmt::format("says {} but its checks make it {}", to_string(claimed),
                                  to_string(integrity.verdict())));
  }
  return integrity;
}

}  // namespace caliber
