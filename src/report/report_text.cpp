#include "report/report_text.h"

#include <ostream>

#include <fmt/format.h>

#include "core/unit_text.h"

namespace caliber::report_text {

std::string speedup(std::optional<double> s) { return s ? fmt::format("{:.3f}x", *s) : "-"; }

std::string us(std::optional<double> v) { return v ? format_us(*v) : "-"; }

std::string percent(std::optional<double> f) { return f ? fmt::format("{:.0f}%", *f * 100) : "-"; }

std::string contract(const Contract& c) {
  std::string schedule(to_string(c.schedule));
  if (c.schedule == Schedule::graph) schedule += fmt::format("({} calls)", c.graph_calls);
  std::string instrument(to_string(c.instrument));
  if (c.instrument == Instrument::cupti) instrument += fmt::format("({})", to_string(c.cupti_reduction));
  std::string out = fmt::format("{}/{}/{}, {}, warmup {}, iterations {}", instrument, schedule, to_string(c.cache),
                                c.statistic.name(), c.warmup, c.iterations.describe());
  if (c.quantity != Quantity::device_time) out += fmt::format(", quantity {}", to_string(c.quantity));
  return out;
}

std::string device(const DeviceInfo& d) {
  return fmt::format("{} ({}, {} backend, {} {}), {} {}, {} {}", d.name, d.arch, to_string(d.backend), d.multiprocessors,
                     d.backend == BackendKind::host ? "logical CPUs" : "multiprocessors",
                     d.backend == BackendKind::host ? "kernel" : "driver", d.driver_version,
                     d.backend == BackendKind::host ? "libc" : "runtime", d.runtime_version);
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

void markdown_table(std::ostream& out, const std::vector<std::string>& header,
                    const std::vector<std::vector<std::string>>& rows) {
  auto line = [&](const std::vector<std::string>& cells) {
    out << '|';
    for (const auto& c : cells) out << ' ' << markdown_cell(c) << " |";
    out << '\n';
  };
  line(header);
  out << '|';
  for (std::size_t i = 0; i < header.size(); ++i) out << "---|";
  out << '\n';
  for (const auto& r : rows) line(r);
}

void markdown_table_or(std::ostream& out, const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows, const std::string& when_empty) {
  if (rows.empty()) {
    out << when_empty << "\n\n";
    return;
  }
  markdown_table(out, header, rows);
  out << '\n';
}

std::string html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace caliber::report_text
