// The charts of report.html (report/html_report.cpp): kernel-only speedup per shape (log scale,
// one series per baseline), a roofline against the device's measured ceilings, and latency
// distributions per provider from the raw samples. Each is a <figure> of inline SVG with its
// contract beside it (an <aside>); the helpers that build those asides serve the page's other
// figures too.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "report/benchmark_report.h"

namespace caliber::html_charts {

void speedup_chart(std::ostream& out, const BenchmarkReport& r);
// The roofline chart, then a table of the numbers behind it for the candidate.
void roofline_chart(std::ostream& out, const BenchmarkReport& r);
// Shape `index` of the comparison.
void latency_chart(std::ostream& out, const BenchmarkReport& r, std::size_t index);

// A cell's status as shown: its row's status, "ok (unstable)" for an ok row unusable in
// speedups, "missing" without a row.
std::string status_text(const ProviderCell& c);

// "providers: a, b: <contract>" for each distinct kernel-only (or eager) contract.
std::vector<std::string> contract_lines(const ComparisonSet& set, const std::vector<const ProviderCell*>& cells,
                                        bool kernel_only);

// Every cell of the comparison: each shape's candidate, then its baselines.
std::vector<const ProviderCell*> all_cells(const ComparisonSet& set);

// The contract aside of a figure: the device, each contract line (prefixed by `label`), `extra`.
std::string aside(const BenchmarkReport& r, const std::vector<std::string>& contracts, const std::string& label,
                  const std::vector<std::string>& extra);

}  // namespace caliber::html_charts
