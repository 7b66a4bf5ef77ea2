// The one JSON parser of caliber's inputs (documents, JSON Lines rows, cells that hold JSON).
// Stricter than nlohmann::json::parse, and every refusal is an InputError naming file and line
// (and the field, when the problem is inside one):
//  - a syntax error or truncation;
//  - a number a double cannot hold ("eps": 1e400), instead of nlohmann's out_of_range without
//    a position, and an integer beyond int64 (18446744073709551615 would read as -1);
//  - nesting deeper than kMaxJsonDepth (parsing 100,000 nested arrays costs gigabytes);
//  - a key twice in one object (nlohmann keeps the last one silently, which hides a mistake);
//  - a NUL character in a string ("\u0000"), which no caliber field holds.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace caliber {

// No caliber document nests deeper than 8 levels; other tools' JSON (nvbench, google-benchmark)
// not deeper than 10.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text` (the whole of it). `first_line` is the line of text's first character in `file`
// (a JSON Lines row: its line), so errors name the line in the file.
nlohmann::json parse_json_text(std::string_view text, const std::string& file, long first_line = 1);

}  // namespace caliber
