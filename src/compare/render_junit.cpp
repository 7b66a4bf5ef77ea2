// JUnit XML: one test case per gated row, a <failure> per failed gate, <skipped> per skipped
// gate (fails open); a gated UNKNOWN without --strict passes with its label in <system-out>.
// Report-only rows are not test cases: they cannot fail the job.
#include <ostream>

#include <fmt/format.h>

#include "compare/report_renderers.h"

namespace caliber::compare {
namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters; a newline or tab is kept.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') out += ' ';
        else out += ch;
    }
  }
  return out;
}

}  // namespace

void write_compare_junit(std::ostream& out, const CompareReport& r) {
  const GateSummary& s = r.summary;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"caliber compare\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     s.gated, s.failed, s.skipped);
  out << fmt::format("  <testsuite name=\"caliber.gate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     s.gated, s.failed, s.skipped);
  out << fmt::format("    <properties>\n      <property name=\"baseline\" value=\"{}\"/>\n"
                     "      <property name=\"current\" value=\"{}\"/>\n"
                     "      <property name=\"thresholds\" value=\"{}\"/>\n    </properties>\n",
                     xml_escape(r.baseline_file), xml_escape(r.current_file), xml_escape(r.thresholds_file));
  for (const RowComparison& row : r.rows) {
    if (!row.gated()) continue;
    out << fmt::format("    <testcase classname=\"caliber.gate.{}\" name=\"{}\"",
                       xml_escape(row.arch.empty() ? "unknown" : row.arch), xml_escape(row.label));
    const std::string label = xml_escape(row.gate_label());
    switch (row.outcome) {
      case Outcome::fail:
        out << fmt::format(">\n      <failure type=\"{}\" message=\"{}\">{}\ncalibration: {}</failure>\n    </testcase>\n",
                           row.contract_refused ? "contract_mismatch"
                           : row.config_refused ? "config_mismatch"
                                                : "regression",
                           label, label,
                           xml_escape(row.rule->calibration));
        break;
      case Outcome::skip:
        out << fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", label);
        break;
      default:
        out << fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n", label);
        break;
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace caliber::compare
