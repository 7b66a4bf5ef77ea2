// Text pieces shared by the markdown and HTML reports, so both print a number the same way.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "caliber/device.h"

namespace caliber::report_text {

// "1.100x", or "-" when absent.
std::string speedup(std::optional<double> s);
// format_us, or "-" when absent.
std::string us(std::optional<double> v);
// "60%", or "-" when absent.
std::string percent(std::optional<double> fraction);
// "event/graph(20 calls)/warm, median, warmup 10, iterations adaptive:..." (backend left out).
std::string contract(const Contract& c);
// "NVIDIA H200 (sm_90, cuda backend, 132 multiprocessors), driver 13.0, runtime 13.0"
std::string device(const DeviceInfo& d);

// A GitHub-flavoured markdown table; cells have '|' escaped and newlines flattened.
void markdown_table(std::ostream& out, const std::vector<std::string>& header,
                    const std::vector<std::vector<std::string>>& rows);
std::string markdown_cell(const std::string& text);
// The table and a blank line, or `when_empty` and a blank line when there are no rows.
void markdown_table_or(std::ostream& out, const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows, const std::string& when_empty);

// HTML text with &, <, >, " escaped.
std::string html(const std::string& text);

}  // namespace caliber::report_text
