// JSON Lines: one JSON value per line. Shared by every JSONL reader so they fail the same way.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "caliber/errors.h"

namespace caliber {

// Calls `row` for every non-blank line of `text` with the parsed value (core/json_text.h) and its
// 1-based line. A line that is not valid JSON (a truncated last line included) is an InputError
// naming file and line: thrown, or, with `malformed`, handed to it and the walk goes on (caliber
// validate reports every bad line).
void for_each_jsonl_row(const std::string& text, const std::string& file,
                        const std::function<void(const nlohmann::json& value, long line)>& row,
                        const std::function<void(const InputError& error)>& malformed = nullptr);

// The same walk over a file, read a line at a time (core/input_file.h, for_each_text_line): a
// results file or ledger of any size is read in memory bounded by its longest line. `row` also
// gets the line's text as written (receipts hash it).
void for_each_jsonl_line(const std::string& file,
                         const std::function<void(std::string_view text, const nlohmann::json& value, long line)>& row,
                         const std::function<void(const InputError& error)>& malformed = nullptr);

}  // namespace caliber
