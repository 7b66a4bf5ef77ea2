// Trends as one self-contained HTML page (history/trend_render.h): per series an SVG plot of its
// points (each with its interval), the medians of the segments between change points, and each
// change marked where it happened, with its commit range and the commands for both sides.
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "history/trend_render.h"
#include "report/report_text.h"
#include "report/svg_chart.h"

namespace caliber::history {
namespace {

using report_text::html;

constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1a1a1a;max-width:1200px}
h1{font-size:22px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}
.meta,.why{font-size:13px;color:#333}.change{font-size:13px;margin:4px 0}.change code{font-size:12px}
.chart-svg{font-size:11px;background:#fff}
.chart-svg .axis{stroke:#333;stroke-width:1}.chart-svg .grid{stroke:#e5e5e5;stroke-width:1}
.chart-svg .tick{fill:#333}.chart-svg .axis-label{fill:#111;font-size:12px}
.chart-svg .interval{stroke:#0072B2;stroke-width:1.2;stroke-opacity:0.6}.chart-svg .point{fill-opacity:0.85}
.chart-svg .segment{stroke:#009E73;stroke-width:2}.chart-svg .change{stroke:#D55E00;stroke-dasharray:5 3;stroke-width:1.5}
.chart-svg .change-label{fill:#D55E00}
)";

constexpr int kWidth = 900, kHeight = 300, kLeft = 70, kRight = 20, kTop = 20, kBottom = 45;

std::pair<double, double> value_range(const SeriesTrend& t) {
  double lo = *std::min_element(t.values.begin(), t.values.end());
  double hi = *std::max_element(t.values.begin(), t.values.end());
  for (std::size_t i : t.measured) {
    const StoredPoint& p = t.series->points[i];
    if (p.ci_low_us) lo = std::min(lo, *p.ci_low_us);
    if (p.ci_high_us) hi = std::max(hi, *p.ci_high_us);
  }
  if (hi <= lo) hi = lo + std::max(1e-9, lo * 0.01);
  return {lo, hi};
}

void draw_segments(svg::Svg& svg, const SeriesTrend& t, const svg::Axis& x, const svg::Axis& y) {
  std::vector<std::size_t> cuts = {0};
  for (const TrendChange& c : t.changes) cuts.push_back(c.point.index);
  cuts.push_back(t.values.size());
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
    std::vector<double> seg(t.values.begin() + static_cast<std::ptrdiff_t>(cuts[s]),
                            t.values.begin() + static_cast<std::ptrdiff_t>(cuts[s + 1]));
    std::nth_element(seg.begin(), seg.begin() + static_cast<std::ptrdiff_t>(seg.size() / 2), seg.end());
    const double median = seg[seg.size() / 2];
    svg.line(x.map(static_cast<double>(cuts[s] + 1) - 0.4), y.map(median),
             x.map(static_cast<double>(cuts[s + 1]) + 0.4), y.map(median), "segment");
  }
  for (const TrendChange& c : t.changes) {
    const double cx = x.map(static_cast<double>(c.point.index) + 0.5);
    svg.line(cx, kTop, cx, kHeight - kBottom, "change");
    svg.text(cx + 4, kTop + 12, fmt::format("{} {:+.1f}%", c.direction, 100 * c.point.relative), "change-label",
             "start");
  }
}

std::string plot(const SeriesTrend& t, const History& h) {
  svg::Svg svg(fmt::format("series-{}", t.series->id), kWidth, kHeight, t.series->record.label);
  const auto [lo, hi] = value_range(t);
  const svg::Axis x = svg::linear_axis(1, std::max<double>(2, static_cast<double>(t.values.size())), kLeft,
                                       kWidth - kRight);
  const svg::Axis y = svg::linear_axis(lo, hi, kHeight - kBottom, kTop);
  svg.x_axis(x, kHeight - kBottom, kTop, "run (oldest first)");
  svg.y_axis(y, kLeft, kWidth - kRight, "latency (us)");
  draw_segments(svg, t, x, y);
  for (std::size_t k = 0; k < t.measured.size(); ++k) {
    const StoredPoint& p = t.series->points[t.measured[k]];
    const StoredRun& r = h.run_of(p);
    const double px = x.map(static_cast<double>(k + 1));
    if (p.ci_low_us && p.ci_high_us) svg.line(px, y.map(*p.ci_low_us), px, y.map(*p.ci_high_us), "interval");
    svg.marker(svg::Marker::circle, px, y.map(t.values[k]), 6, svg::series_color(0),
               fmt::format("{} {} {:.4g} us", r.date, r.commit.substr(0, 12), t.values[k]));
  }
  return svg.str();
}

void write_series(std::ostream& out, const SeriesTrend& t, const History& h) {
  const StoredSeries& s = *t.series;
  out << fmt::format("<section class=\"series\" id=\"s{}\" data-changes=\"{}\">\n<h2>series {}: {} {}</h2>\n", s.id,
                     t.changes.size(), s.id, html(s.record.label), html(s.record.arch));
  if (!t.new_series_because.empty()) out << "<p class=\"why\">New series: " << html(t.new_series_because) << "</p>\n";
  if (t.values.empty()) {
    out << "<p class=\"meta\">No measured point.</p>\n</section>\n";
    return;
  }
  out << plot(t, h) << "\n";
  if (t.changes.empty()) out << "<p class=\"meta\">No change point.</p>\n";
  for (const TrendChange& c : t.changes) {
    const StoredRun& before = h.run_of(s.points[c.before]);
    const StoredRun& after = h.run_of(s.points[c.after]);
    out << fmt::format(
        "<div class=\"change\"><b>{} {:+.1f}%</b> ({:.4g} → {:.4g} us, p = {:.3g}) between commit <code>{}</code> "
        "({}) and <code>{}</code> ({}).<br>Before: <code>{}</code><br>After: <code>{}</code></div>\n",
        c.direction, 100 * c.point.relative, c.point.before, c.point.after, c.point.p_value, html(before.commit),
        html(before.date), html(after.commit), html(after.date), html(c.reproduce_before), html(c.reproduce_after));
  }
  out << "</section>\n";
}

}  // namespace

std::string trend_html(const Trends& trends, const History& h, const std::string& title) {
  std::ostringstream out;
  std::size_t changes = 0;
  for (const SeriesTrend& t : trends.series) changes += t.changes.size();
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      << "<title>" << html(title) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n"
      << "<h1>" << html(title) << "</h1>\n"
      << fmt::format("<p class=\"meta\">{} series, {} change points. Change points: {}.</p>\n", trends.series.size(),
                     changes, html(method_text(trends.settings)));
  for (const SeriesTrend& t : trends.series) write_series(out, t, h);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace caliber::history
