// The worker's channel token (docs/runner.md, "The worker's channel"). The measured code runs in
// the worker's process and can write to the events descriptor the worker reports on; it cannot
// speak on that channel without the token, which the parent draws for each worker and sends as the
// first line on the worker's stdin (read before any provider code is loaded: never on a command
// line or in the environment). Every event carries it; the parent takes no event without it.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace caliber::runner {

// 32 hex digits from the system's entropy.
std::string make_worker_token();
// The first line the parent sends: {"token": "<token>"}.
std::string token_line(const std::string& token);
// The token of a first line, or nullopt when the line is not one.
std::optional<std::string> token_from_line(const std::string& line);

// A token read before the core's worker runs (the Python worker reads the line itself, before it
// imports any provider file): serve_run then takes it instead of reading a line.
void preset_worker_token(std::string token);
std::optional<std::string> take_preset_worker_token();

// An event line from the worker: the event (without its token) when it parses and carries
// `token`, else nullopt with *why set (what the parent says of a channel the measured code wrote to).
std::optional<nlohmann::json> authentic_event(const std::string& line, const std::string& token, std::string* why);

}  // namespace caliber::runner
