// The shape ledger (shape_ledger.jsonl): one JSON object per line, one row per benchmarked shape.
// Readers are strict: a malformed or truncated line, a missing field, an unknown enum value, an
// unknown op, bad args, a shape_id that does not match the row's identity or a duplicate shape_id
// is an InputError naming file, line and field (docs/ledger.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/shape_ledger.h"

namespace caliber {

nlohmann::json to_json(const ShapeRow& row);
// Strict reader of one row (see the header comment). `line` is the row's line.
ShapeRow shape_row_from_json(const nlohmann::json& j, const std::string& file, long line);

// Parses JSONL text: blank lines are skipped; every other line is one row. Refuses duplicate ids.
std::vector<ShapeRow> parse_shape_ledger(const std::string& text, const std::string& file);
// Reads a ledger file (a missing file is an InputError).
std::vector<ShapeRow> read_shape_ledger(const std::string& file);
// Serializes rows, one compact JSON object per line. Throws InputError on duplicate shape ids or
// a shape_id that does not match its identity (nothing is written).
std::string shape_ledger_text(const std::vector<ShapeRow>& rows, const std::string& file);
// Writes the ledger atomically (temporary file + fsync + rename).
void write_shape_ledger(const std::string& file, const std::vector<ShapeRow>& rows);

}  // namespace caliber
