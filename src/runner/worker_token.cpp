#include "runner/worker_token.h"

#include <utility>

#include <fmt/format.h>

#include "core/entropy_seed.h"

namespace caliber::runner {
namespace {

std::optional<std::string>& preset() {
  static std::optional<std::string> token;
  return token;
}

// At most this much of a rejected line is quoted.
constexpr std::size_t kQuoted = 80;

}  // namespace

std::string make_worker_token() { return fmt::format("{:016x}{:016x}", entropy_seed(), entropy_seed()); }

std::string token_line(const std::string& token) { return nlohmann::json{{"token", token}}.dump(); }

std::optional<std::string> token_from_line(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.size() != 1 || !j.contains("token") || !j["token"].is_string()) return std::nullopt;
  const std::string token = j["token"].get<std::string>();
  if (token.empty()) return std::nullopt;
  return token;
}

void preset_worker_token(std::string token) { preset() = std::move(token); }

std::optional<std::string> take_preset_worker_token() { return std::exchange(preset(), std::nullopt); }

std::optional<nlohmann::json> authentic_event(const std::string& line, const std::string& token, std::string* why) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  const std::string quoted = line.size() > kQuoted ? line.substr(0, kQuoted) + "..." : line;
  if (!j.is_object()) {
    *why = fmt::format("a line on the worker's events channel that is not an event ('{}'): the measured code wrote "
                       "to the worker's channel",
                       quoted);
    return std::nullopt;
  }
  const auto t = j.find("token");
  if (t == j.end() || !t->is_string() || t->get<std::string>() != token) {
    *why = fmt::format("an event without the worker's token ('{}'): the measured code wrote to the worker's channel",
                       quoted);
    return std::nullopt;
  }
  j.erase("token");
  return j;
}

}  // namespace caliber::runner
