// The results table's cells, from the rows (docs/reports.md, "Results table").
#include "report/shape_results_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/roofline.h"
#include "analysis/shape_comparison.h"
#include "core/unit_text.h"
#include "report/report_text.h"

namespace caliber {
namespace {

// The row's timing: its median (the primary measurement's) when positive.
std::optional<double> median_of(const BenchmarkResultRow& r) {
  if (r.median_us && *r.median_us > 0) return r.median_us;
  return std::nullopt;
}

std::string latency_text(const BenchmarkResultRow& r, std::optional<double> median) {
  if (!median) return "-";
  // A row whose kernel-only measurement failed reports its eager median: another quantity.
  return r.kernel_only || !r.eager ? format_us(*median) : format_us(*median) + " (eager)";
}

std::string interval_text(const BenchmarkResultRow& r) {
  const Result* primary = primary_measurement(r);
  if (!primary || !primary->median_ci95_us) return "-";
  return format_us(primary->median_ci95_us->lo) + ".." + format_us(primary->median_ci95_us->hi);
}

std::string stability_text(const BenchmarkResultRow& r) {
  if (!r.stable) return "-";
  return *r.stable ? "stable" : "unstable";
}

}  // namespace

ResultsTableBuilder::ResultsTableBuilder(const DeviceCeilings* ceilings, std::string no_ceilings)
    : ceilings_(ceilings), no_ceilings_(std::move(no_ceilings)) {}

void ResultsTableBuilder::add(const BenchmarkResultRow& r, const std::string& provider_label) {
  Entry e;
  e.provider = r.provider;
  ResultsTableLine& l = e.line;
  l.shape = shape_label(r.dtype, r.args);
  l.provider = provider_label.empty() ? r.provider : provider_label;
  l.status = std::string(to_string(r.benchmark_status));
  const std::optional<double> median = median_of(r);
  l.latency = latency_text(r, median);
  l.interval = median ? interval_text(r) : "-";
  l.gb_per_s = l.tflop_per_s = l.roofline = "-";
  if (median) {
    const RooflinePoint p = roofline_point(r.bytes, r.flops, *median, ceilings_, r.dtype);
    if (r.bytes > 0) l.gb_per_s = fmt::format("{:.1f}", p.achieved_bytes_per_s / 1e9);
    if (r.flops > 0) l.tflop_per_s = fmt::format("{:.3f}", p.achieved_flops_per_s / 1e12);
    if (p.fraction) l.roofline = fmt::format("{} {}", report_text::percent(p.fraction), p.bound);
    e.timed_without_fraction = !p.fraction;
  }
  l.stability = stability_text(r);
  e.unstable = row_instability_reason(r);

  auto [it, first] = cells_.try_emplace(r.shape_id);
  if (first) shapes_.push_back(r.shape_id);
  auto same = std::find_if(it->second.begin(), it->second.end(), [&](const Entry& x) { return x.provider == r.provider; });
  if (same != it->second.end()) {
    *same = std::move(e);
  } else {
    it->second.push_back(std::move(e));
  }
}

ResultsTable ResultsTableBuilder::build() const {
  ResultsTable t;
  bool fraction_missing = false;
  std::vector<std::string> unstable;
  for (const std::string& shape : shapes_) {
    for (const Entry& e : cells_.at(shape)) {
      t.lines.push_back(e.line);
      fraction_missing = fraction_missing || e.timed_without_fraction;
      if (!e.unstable.empty()) unstable.push_back(fmt::format("unstable: {} {}: {}", e.line.shape, e.line.provider, e.unstable));
    }
  }
  if (!ceilings_) {
    t.notes.push_back("roofline -: " + no_ceilings_);
  } else if (fraction_missing) {
    t.notes.push_back("roofline -: the device's ceilings have neither a bandwidth ceiling for the row's bytes nor a "
                      "matmul ceiling of its dtype");
  }
  t.notes.insert(t.notes.end(), unstable.begin(), unstable.end());
  return t;
}

}  // namespace caliber
