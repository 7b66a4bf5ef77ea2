// The integrity record as JSON: {"verdict", "verification_seed", "input_seed", "checks": [{"name",
// "outcome", "detail"}]} (docs/integrity.md). The verdict is derived from the checks and re-derived on
// reading: a file cannot claim a better verdict than its checks support.
#include <fmt/format.h>

#include "caliber/result_json.h"
#include "core/json_fields.h"

namespace caliber {
namespace {

// An optional field of 16 hex digits (or null).
std::optional<std::uint64_t> hex_seed(const JsonFields& f, const char* name) {
  const auto text = f.opt_str(name);
  if (!text) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::uint64_t seed = std::stoull(*text, &used, 16);
    if (used != text->size() || text->empty()) throw std::invalid_argument("trailing");
    return seed;
  } catch (const std::exception&) {
    f.fail(name, fmt::format("expected 16 hex digits, got '{}'", *text));
  }
}

}  // namespace

nlohmann::json to_json(const Integrity& integrity) {
  nlohmann::json checks = nlohmann::json::array();
  for (const IntegrityCheck& c : integrity.checks) {
    checks.push_back({{"name", c.name}, {"outcome", std::string(to_string(c.outcome))}, {"detail", c.detail}});
  }
  nlohmann::json j = {{"verdict", std::string(to_string(integrity.verdict()))}, {"checks", std::move(checks)}};
  const auto hex = [](const std::optional<std::uint64_t>& seed) {
    return seed ? nlohmann::json(fmt::format("{:016x}", *seed)) : nlohmann::json(nullptr);
  };
  j["verification_seed"] = hex(integrity.verification_seed);
  j["input_seed"] = hex(integrity.input_seed);
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
  integrity.verification_seed = hex_seed(f, "verification_seed");
  integrity.input_seed = hex_seed(f, "input_seed");
  const IntegrityVerdict claimed =
      f.parse("verdict", [](const std::string& s) { return parse_integrity_verdict(s); });
  if (claimed != integrity.verdict()) {
    f.fail("verdict", fmt::format("says {} but its checks make it {}", to_string(claimed),
                                  to_string(integrity.verdict())));
  }
  return integrity;
}

}  // namespace caliber
