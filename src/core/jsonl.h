// JSON Lines: one JSON value per line. Shared by every JSONL reader so they fail the same way.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace caliber {

// Calls `row` for every non-blank line of `text` with the parsed value and its 1-based line.
// A line that is not valid JSON (a truncated last line included) is an InputError naming file
// and line.
void for_each_jsonl_row(const std::string& text, const std::string& file,
                        const std::function<void(const nlohmann::json& value, long line)>& row);

}  // namespace caliber
