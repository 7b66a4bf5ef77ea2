// The trends as people and programs read them: text (caliber history trend), JSON (--json), and a
// self-contained HTML page with one SVG plot per series (caliber history report).
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "history/trend.h"

namespace caliber::history {

void write_trend_text(std::ostream& out, const Trends& trends, const History& history);
nlohmann::json trend_json(const Trends& trends, const History& history);
// One page, no external resource: inline CSS and SVG, no script.
std::string trend_html(const Trends& trends, const History& history, const std::string& title);

}  // namespace caliber::history
