#include "report/html_charts.h"

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "caliber/statistics.h"
#include "report/report_text.h"
#include "report/svg_chart.h"
#include "core/unit_text.h"

namespace caliber::html_charts {

namespace rt = report_text;
using rt::html;

std::string status_text(const ProviderCell& c) {
  if (!c.row) return "missing";
  if (c.row->benchmark_status == BenchmarkStatus::ok && !c.usable()) return "ok (unstable)";
  return std::string(to_string(c.row->benchmark_status));
}

std::vector<std::string> contract_lines(const ComparisonSet& set, const std::vector<const ProviderCell*>& cells,
                                        bool kernel_only) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const ProviderCell* c : cells) {
    if (!c->row) continue;
    const auto& m = kernel_only ? c->row->kernel_only : c->row->eager;
    if (!m) continue;
    const std::string text = fmt::format("{} {}", to_string(m->contract.backend), rt::contract(m->contract));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
    if (it == groups.end()) {
      groups.push_back({text, {}});
      it = groups.end() - 1;
    }
    const std::string label = set.provider_label(c->provider);
    if (std::find(it->second.begin(), it->second.end(), label) == it->second.end()) it->second.push_back(label);
  }
  std::vector<std::string> out;
  for (const auto& [text, providers] : groups) {
    std::string names;
    for (const auto& p : providers) names += (names.empty() ? "" : ", ") + p;
    out.push_back(fmt::format("{}: {}", names, text));
  }
  return out;
}

std::vector<const ProviderCell*> all_cells(const ComparisonSet& set) {
  std::vector<const ProviderCell*> out;
  for (const auto& s : set.shapes) {
    out.push_back(&s.candidate);
    for (const auto& b : s.baselines) out.push_back(&b);
  }
  return out;
}

std::string aside(const BenchmarkReport& r, const std::vector<std::string>& contracts, const std::string& label,
                  const std::vector<std::string>& extra) {
  std::string out = "<aside class=\"contract\"><h3>Contract</h3><ul>";
  if (r.device) out += "<li>device: " + html(rt::device(*r.device)) + "</li>";
  if (contracts.empty()) out += "<li>" + html(label) + ": none measured</li>";
  for (const auto& c : contracts) out += "<li>" + html(label) + " " + html(c) + "</li>";
  for (const auto& e : extra) out += "<li>" + html(e) + "</li>";
  return out + "</ul></aside>\n";
}

namespace {

constexpr std::size_t kMaxDotsPerRow = 120;  // keeps a report of hundreds of shapes a few MB

// Index of a provider in the colour scheme: candidate 0, baselines 1..
std::size_t provider_index(const ComparisonSet& set, const std::string& provider) {
  if (provider == set.candidate) return 0;
  for (std::size_t i = 0; i < set.baselines.size(); ++i) {
    if (set.baselines[i] == provider) return i + 1;
  }
  return 0;
}

std::string legend(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<ul class=\"legend\">";
  for (const auto& [label, color] : items) {
    out += fmt::format("<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>", color, html(label));
  }
  return out + "</ul>\n";
}

// The smallest and largest speedup any shape has against any baseline (1 when none has one).
struct SpeedupRange {
  double lo = 1, hi = 1;
  bool any = false;
};
SpeedupRange speedup_range(const ComparisonSet& set) {
  SpeedupRange r;
  for (const auto& s : set.shapes) {
    for (const auto& v : s.speedup_vs) {
      if (v) {
        r.lo = std::min(r.lo, *v);
        r.hi = std::max(r.hi, *v);
        r.any = true;
      }
    }
  }
  return r;
}

// The speedup's series: against the best baseline available (rings), then one per baseline
// (offset sideways so equal values stay visible). Returns the legend's items.
std::vector<std::pair<std::string, std::string>> speedup_series(svg::Svg& chart, const ComparisonSet& set,
                                                                const svg::Axis& y,
                                                                const std::function<double(std::size_t)>& x_of) {
  const std::size_t n = set.shapes.size();
  chart.open_group("series", "vs best available");
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = set.shapes[i];
    if (!s.speedup_vs_best) continue;
    chart.marker(svg::Marker::circle, x_of(i), y.map(*s.speedup_vs_best), 7, "#000000",
                 fmt::format("shape {} ({}, {}): {} vs best ({})", i + 1, s.label(), s.shape.shape_id, rt::speedup(s.speedup_vs_best),
                             set.provider_label(*s.best_baseline)),
                 "point best");
  }
  chart.close_group();
  std::vector<std::pair<std::string, std::string>> items = {{"vs best available (ring)", "#000000"}};
  for (std::size_t b = 0; b < set.baselines.size(); ++b) {
    const std::string label = "vs " + set.provider_label(set.baselines[b]);
    const std::string color = svg::series_color(b + 1);
    items.push_back({label, color});
    chart.open_group("series", label);
    const double offset = (static_cast<double>(b) - static_cast<double>(set.baselines.size() - 1) / 2) * 5;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& v = set.shapes[i].speedup_vs[b];
      if (!v) continue;
      chart.marker(svg::series_marker(b + 1), x_of(i) + offset, y.map(*v), 4, color,
                   fmt::format("shape {} ({}, {}): {} {}", i + 1, set.shapes[i].label(), set.shapes[i].shape.shape_id,
                               rt::speedup(v), label));
    }
    chart.close_group();
  }
  return items;
}

struct RooflineDot {
  std::size_t provider = 0;
  std::string label;
  double intensity = 0;  // flop per byte
  double flops_per_s = 0;
  std::string tooltip;
};

// Every usable row with bytes and flops as a dot (its kernel-only time against its counts);
// `dtypes`: the dtypes they have (their matmul ceilings are drawn).
std::vector<RooflineDot> roofline_dots(const BenchmarkReport& r, std::set<std::string>& dtypes) {
  const ComparisonSet& set = r.comparison;
  std::vector<RooflineDot> dots;
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const ShapeComparison& s = set.shapes[i];
    auto add = [&](const ProviderCell& c) {
      const auto t = c.kernel_only_us();
      if (!t || c.row->flops == 0 || c.row->bytes == 0) return;
      const RooflinePoint p = roofline_point(c.row->bytes, c.row->flops, *t, r.ceilings ? &*r.ceilings : nullptr, c.row->dtype);
      dtypes.insert(c.row->dtype);
      dots.push_back({provider_index(set, c.provider), set.provider_label(c.provider),
                      static_cast<double>(c.row->flops) / static_cast<double>(c.row->bytes), p.achieved_flops_per_s,
                      fmt::format("shape {} ({}, {}) {}: {} us, {}, {}{}", i + 1, s.label(), s.shape.shape_id,
                                  set.provider_label(c.provider),
                                  rt::us(t), format_rate(p.achieved_bytes_per_s, "bytes/s"),
                                  format_rate(p.achieved_flops_per_s, "flop/s"),
                                  p.fraction ? fmt::format(", {} of the {} roofline", rt::percent(p.fraction), p.bound)
                                             : std::string())});
    };
    add(s.candidate);
    for (const auto& b : s.baselines) add(b);
  }
  return dots;
}

// The roofline's ceilings: the memory bandwidth (null when not measured) and a matmul peak per dtype.
struct RooflineCeilings {
  const Ceiling* bw = nullptr;
  std::vector<std::pair<std::string, const Ceiling*>> peaks;
};
RooflineCeilings roofline_ceilings(const BenchmarkReport& r, const std::set<std::string>& dtypes) {
  RooflineCeilings c;
  c.bw = r.ceilings && r.ceilings->memory_bandwidth.available ? &r.ceilings->memory_bandwidth : nullptr;
  if (r.ceilings) {
    for (const auto& dt : dtypes) {
      if (const Ceiling* m = matmul_ceiling_for(*r.ceilings, dt)) c.peaks.push_back({dt, m});
    }
  }
  return c;
}

// The axes' ranges: the dots' (1 flop/byte, 1e9 flop/s when none), widened to the ceilings.
struct RooflineRange {
  double xlo = 1, xhi = 1, ylo = 1e9, yhi = 1e9;
};
RooflineRange roofline_range(const std::vector<RooflineDot>& dots, const RooflineCeilings& ceilings) {
  RooflineRange g;
  bool first = true;
  for (const auto& d : dots) {
    if (first) {
      g.xlo = g.xhi = d.intensity;
      g.ylo = g.yhi = d.flops_per_s;
      first = false;
    }
    g.xlo = std::min(g.xlo, d.intensity);
    g.xhi = std::max(g.xhi, d.intensity);
    g.ylo = std::min(g.ylo, d.flops_per_s);
    g.yhi = std::max(g.yhi, d.flops_per_s);
  }
  for (const auto& [dt, c] : ceilings.peaks) {
    g.yhi = std::max(g.yhi, c->rate_per_s);
    if (ceilings.bw) g.xhi = std::max(g.xhi, c->rate_per_s / ceilings.bw->rate_per_s);
  }
  return g;
}

// Draws the roofs (GFLOP/s on y); returns a line per ceiling for the contract aside.
std::vector<std::string> draw_roofs(svg::Svg& chart, const svg::Axis& x, const svg::Axis& y,
                                    const RooflineCeilings& ceilings) {
  std::vector<std::string> ceiling_lines;
  const Ceiling* bw = ceilings.bw;
  if (bw) {
    ceiling_lines.push_back(fmt::format("memory ceiling {}: {}", format_rate(bw->rate_per_s, bw->unit), bw->method));
    // The memory roof y = bandwidth x intensity, clipped to the plot and to the highest peak's ridge.
    const double b = bw->rate_per_s / 1e9;
    double x_end = std::min(x.hi, y.hi / b);
    if (!ceilings.peaks.empty()) {
      double ridge = 0;
      for (const auto& [dt, c] : ceilings.peaks) ridge = std::max(ridge, c->rate_per_s / 1e9 / b);
      x_end = std::min(x_end, ridge);
    }
    const double x_start = std::max(x.lo, y.lo / b);
    if (x_end > x_start) {
      chart.polyline({{x.map(x_start), y.map(b * x_start)}, {x.map(x_end), y.map(b * x_end)}}, "roof");
      chart.text(x.map(x_start) + 6, y.map(b * x_start) - 8,
                 "memory " + format_rate(bw->rate_per_s, bw->unit), "roof-label", "start");
    }
  }
  for (const auto& [dt, c] : ceilings.peaks) {
    ceiling_lines.push_back(fmt::format("matmul {} ceiling {}: {}", dt, format_rate(c->rate_per_s, c->unit), c->method));
    const double p = c->rate_per_s / 1e9;
    const double x_start = bw ? std::max(x.lo, p / (bw->rate_per_s / 1e9)) : x.lo;
    if (x.hi > x_start) {
      chart.polyline({{x.map(x_start), y.map(p)}, {x.map(x.hi), y.map(p)}}, "roof");
      chart.text(x.map(x.hi) - 4, y.map(p) - 6, fmt::format("{} matmul {}", dt, format_rate(c->rate_per_s, c->unit)),
                 "roof-label", "end");
    }
  }
  return ceiling_lines;
}

// One series per provider (the candidate's dots larger); returns the legend's items.
std::vector<std::pair<std::string, std::string>> draw_roofline_dots(svg::Svg& chart, const svg::Axis& x,
                                                                    const svg::Axis& y,
                                                                    const std::vector<RooflineDot>& dots) {
  std::map<std::size_t, std::vector<const RooflineDot*>> by_provider;
  for (const auto& d : dots) by_provider[d.provider].push_back(&d);
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& [p, list] : by_provider) {
    items.push_back({list.front()->label + (p == 0 ? " (candidate)" : ""), svg::series_color(p)});
    chart.open_group("series", list.front()->label);
    for (const RooflineDot* d : list) {
      chart.marker(svg::series_marker(p), x.map(d->intensity), y.map(d->flops_per_s / 1e9), p == 0 ? 5 : 4,
                   svg::series_color(p), d->tooltip);
    }
    chart.close_group();
  }
  return items;
}

// The numbers behind the roofline chart, for the candidate.
void roofline_table(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "<table id=\"roofline-table\"><tr><th>#</th><th>shape</th><th>dtype args</th><th>candidate us</th>"
         "<th>achieved bandwidth</th><th>of memory ceiling</th><th>achieved flop rate</th><th>of matmul ceiling</th></tr>\n";
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const auto& s = set.shapes[i];
    const auto& p = r.shapes[i].candidate_roofline;
    if (!p) continue;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       i + 1, html(s.shape.shape_id), html(s.label()), rt::us(s.candidate.kernel_only_us()),
                       format_rate(p->achieved_bytes_per_s, "bytes/s"), rt::percent(p->memory_fraction),
                       format_rate(p->achieved_flops_per_s, "flop/s"), rt::percent(p->compute_fraction));
  }
  out << "</table>\n";
}

// The range of the cells' kernel-only samples (their summary's min and max where a row kept no
// raw samples); all_raw: every cell kept them.
struct SampleRange {
  double lo = 0, hi = 0;
  bool all_raw = true;
};
SampleRange sample_range(const std::vector<const ProviderCell*>& cells) {
  SampleRange g;
  bool first = true;
  for (const ProviderCell* c : cells) {
    const Result& m = *c->row->kernel_only;
    const double a = m.samples_us.empty() ? m.summary.min_us : *std::min_element(m.samples_us.begin(), m.samples_us.end());
    const double b = m.samples_us.empty() ? m.summary.max_us : *std::max_element(m.samples_us.begin(), m.samples_us.end());
    g.all_raw = g.all_raw && !m.samples_us.empty();
    g.lo = first ? a : std::min(g.lo, a);
    g.hi = first ? b : std::max(g.hi, b);
    first = false;
  }
  return g;
}

// One provider's row at height cy: its label, a box plot of its summary, and its raw samples
// (every k-th of the sorted samples, at most kMaxDotsPerRow, jittered vertically).
void latency_row(svg::Svg& chart, const svg::Axis& x, const ComparisonSet& set, const ProviderCell& c, double left,
                 double cy) {
  const Result& m = *c.row->kernel_only;
  const std::string color = svg::series_color(provider_index(set, c.provider));
  std::string label = set.provider_label(c.provider);
  if (const std::string st = status_text(c); st != "ok") label += " [" + st + "]";
  chart.text(left - 8, cy + 4, label, "tick", "end");
  const Summary& q = m.summary;
  chart.open_group("series", set.provider_label(c.provider));
  chart.line(x.map(q.p10_us), cy, x.map(q.p25_us), cy, "axis");
  chart.line(x.map(q.p75_us), cy, x.map(q.p90_us), cy, "axis");
  chart.line(x.map(q.min_us), cy - 4, x.map(q.min_us), cy + 4, "axis");
  chart.line(x.map(q.max_us), cy - 4, x.map(q.max_us), cy + 4, "axis");
  chart.rect(x.map(q.p25_us), cy - 9, x.map(q.p75_us) - x.map(q.p25_us), 18, "box",
             fmt::format("fill:{};stroke:{}", color, color),
             fmt::format("{}: n={} min {} p10 {} p25 {} median {} p75 {} p90 {} max {} us", label, q.n,
                         rt::us(q.min_us), rt::us(q.p10_us), rt::us(q.p25_us), rt::us(q.median_us),
                         rt::us(q.p75_us), rt::us(q.p90_us), rt::us(q.max_us)));
  chart.count_point();
  chart.line(x.map(q.median_us), cy - 11, x.map(q.median_us), cy + 11, "axis", "stroke:" + color + ";stroke-width:2.5");
  std::vector<double> sorted = m.samples_us;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t stride = sorted.size() > kMaxDotsPerRow ? (sorted.size() + kMaxDotsPerRow - 1) / kMaxDotsPerRow : 1;
  for (std::size_t i = 0; i < sorted.size(); i += stride) {
    // Deterministic vertical jitter so equal samples stay visible.
    const double jitter = static_cast<double>((i * 7919) % 17) - 8.0;
    chart.dot(x.map(sorted[i]), cy + jitter, 1.6, color);
  }
  chart.close_group();
}

}  // namespace

void speedup_chart(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  const std::size_t n = set.shapes.size();
  const double step = 48;
  const double left = 120, top = 20;
  const int width = static_cast<int>(left + 20 + step * static_cast<double>(std::max<std::size_t>(n, 8)));
  const int height = 430;
  const double bottom = height - 140.0;
  const SpeedupRange range = speedup_range(set);
  svg::Svg chart("speedup-svg", width, height, "Kernel-only speedup of " + set.candidate + " per shape");
  const svg::Axis y = svg::log_axis(range.lo, range.hi, bottom, top);
  chart.y_axis(y, left, width - 10, "speedup (log scale)");
  chart.line(left, bottom, width - 10, bottom, "axis");
  chart.line(left, y.map(1.0), width - 10, y.map(1.0), "parity");
  chart.text(width - 12, y.map(1.0) - 4, "parity (1.0)", "tick", "end");
  auto x_of = [&](std::size_t i) { return left + step * (static_cast<double>(i) + 0.5); };
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = set.shapes[i];
    chart.text(x_of(i), bottom + 14, fmt::format("{}: {}", i + 1, s.label()), "tick", "end", -45);
  }
  const auto items = speedup_series(chart, set, y, x_of);
  if (!range.any) chart.text(width / 2.0, top + 30, "no shape has a usable comparison", "note");
  out << "<figure class=\"chart\" id=\"speedup-chart\"><div class=\"plot\">" << legend(items) << chart.str()
      << "</div>\n";
  out << aside(r, contract_lines(set, all_cells(set), true), "kernel-only",
               {"speedup = baseline_median / candidate_median on the kernel-only median (> 1: candidate faster)",
                "used only when both rows are ok, correct and stable (p90/p10 <= 1.2)"});
  out << "</figure>\n";
}

void roofline_chart(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  std::set<std::string> dtypes;
  const std::vector<RooflineDot> dots = roofline_dots(r, dtypes);
  const RooflineCeilings ceilings = roofline_ceilings(r, dtypes);
  const RooflineRange g = roofline_range(dots, ceilings);
  const int width = 760, height = 440;
  const double left = 80, right = width - 20.0, top = 20, bottom = height - 60.0;
  svg::Svg chart("roofline-svg", width, height, "Roofline: achieved flop rate against the measured ceilings");
  const svg::Axis x = svg::log_axis(g.xlo, g.xhi, left, right, 2.0);
  const svg::Axis y = svg::log_axis(g.ylo / 1e9, g.yhi / 1e9, bottom, top, 2.0);  // GFLOP/s
  chart.x_axis(x, bottom, top, "arithmetic intensity (flop per byte, log)");
  chart.y_axis(y, left, right, "GFLOP/s (log)");
  std::vector<std::string> ceiling_lines = draw_roofs(chart, x, y, ceilings);
  const auto items = draw_roofline_dots(chart, x, y, dots);
  if (dots.empty()) chart.text(width / 2.0, top + 30, "no usable row with bytes and flops", "note");
  if (!r.ceilings) chart.text(width / 2.0, top + 48, "no measured ceilings for this device", "note");
  if (ceiling_lines.empty()) ceiling_lines.push_back(r.ceilings ? "no ceiling for these dtypes" : r.ceilings_note);
  if (r.ceilings) ceiling_lines.push_back(fmt::format("ceilings measured {} ({})", r.ceilings->measured_at, r.sources.ceilings));
  out << "<figure class=\"chart\" id=\"roofline-chart\"><div class=\"plot\">" << legend(items) << chart.str() << "</div>\n";
  out << aside(r, contract_lines(set, all_cells(set), true), "kernel-only", ceiling_lines);
  out << "</figure>\n";
  roofline_table(out, r);
}

void latency_chart(std::ostream& out, const BenchmarkReport& r, std::size_t index) {
  const ComparisonSet& set = r.comparison;
  const ShapeComparison& s = set.shapes[index];
  std::vector<const ProviderCell*> cells;
  if (s.candidate.row && s.candidate.row->kernel_only) cells.push_back(&s.candidate);
  for (const auto& b : s.baselines) {
    if (b.row && b.row->kernel_only) cells.push_back(&b);
  }
  const double left = 190, top = 16, row_h = 34;
  const int width = 820;
  const int height = static_cast<int>(top + row_h * static_cast<double>(std::max<std::size_t>(cells.size(), 1)) + 56);
  const double bottom = height - 46.0;
  const SampleRange g = sample_range(cells);
  const bool log = g.lo > 0 && g.hi / g.lo > 20;
  const svg::Axis x =
      log ? svg::log_axis(g.lo, g.hi, left, width - 20.0, 1.1) : svg::linear_axis(g.lo, g.hi, left, width - 20.0);
  svg::Svg chart(fmt::format("latency-svg-{}", index + 1), width, height,
                 fmt::format("Kernel-only latency distribution, shape {} ({}, {})", index + 1, s.label(), s.shape.shape_id));
  chart.x_axis(x, bottom, top, log ? "kernel-only time per call (us, log)" : "kernel-only time per call (us)");
  for (std::size_t k = 0; k < cells.size(); ++k) {
    latency_row(chart, x, set, *cells[k], left, top + row_h * (static_cast<double>(k) + 0.5));
  }
  if (cells.empty()) chart.text(width / 2.0, top + 20, "no kernel-only measurement for this shape", "note");
  std::vector<const ProviderCell*> shape_cells = {&s.candidate};
  for (const auto& b : s.baselines) shape_cells.push_back(&b);
  std::vector<std::string> extra = {"box: p25-p75, bar: median, whiskers: p10-p90, ticks: min and max"};
  extra.push_back(g.all_raw ? "dots: raw samples (at most 120 per provider, every k-th of the sorted samples)"
                            : "some providers have no raw samples in the results: their box is drawn from the summary only");
  out << fmt::format("<figure class=\"chart latency\" id=\"latency-{}\"><div class=\"plot\"><h3>{}. {} {} ({}, {})</h3>",
                     index + 1, index + 1, html(s.shape.shape_id), html(s.label()), html(s.shape.model.value_or("no model")),
                     to_string(s.shape.stage))
      << chart.str() << "</div>\n";
  out << aside(r, contract_lines(set, shape_cells, true), "kernel-only", extra);
  out << "</figure>\n";
}

}  // namespace caliber::html_charts
