// report.html: one self-contained page (inline CSS and SVG, no script, no network: a Content
// Security Policy forbids every fetch). Charts: kernel-only speedup per shape (log scale, one
// series per baseline), a roofline against the device's measured ceilings, latency distributions
// per provider from the raw samples, and the coverage grid; each with its contract beside it.
// docs/reports.md explains why the charts are SVG written by caliber.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "report/benchmark_report.h"
#include "caliber/config.h"
#include "caliber/statistics.h"
#include "report/report_text.h"
#include "report/svg_chart.h"
#include "core/unit_text.h"

namespace caliber {
namespace {

namespace rt = report_text;
using rt::html;

constexpr std::size_t kMaxDotsPerRow = 120;  // keeps a report of hundreds of shapes a few MB

const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1a1a1a;max-width:1500px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
h3{font-size:14px;margin:0 0 6px 0}
.decision{font-size:16px;padding:8px 12px;border-left:4px solid #0072B2;background:#f3f7fb}
.meta{font-size:13px;color:#333}
figure.chart{display:flex;gap:16px;align-items:flex-start;margin:12px 0;flex-wrap:wrap}
figure.chart .plot{overflow-x:auto;max-width:1100px}
aside.contract{font-size:12px;overflow-wrap:anywhere;background:#fafafa;border:1px solid #ddd;padding:8px 10px;max-width:360px;min-width:240px}
aside.contract ul{margin:0;padding-left:16px}
.chart-svg{font-size:11px;background:#fff}
.chart-svg .axis{stroke:#333;stroke-width:1}.chart-svg .grid{stroke:#e5e5e5;stroke-width:1}
.chart-svg .tick{fill:#333}.chart-svg .axis-label{fill:#111;font-size:12px}
.chart-svg .parity{stroke:#444;stroke-dasharray:4 3}.chart-svg .roof{fill:none;stroke:#D55E00;stroke-width:2}
.chart-svg .roof-label{fill:#D55E00}.chart-svg .box{fill-opacity:0.25;stroke-width:1.5}
.chart-svg .sample{fill-opacity:0.45}.chart-svg .point{fill-opacity:0.85}.chart-svg .best{fill:none!important;stroke-width:2}
.chart-svg .note{fill:#a00}
ul.legend{list-style:none;padding:0;margin:6px 0;font-size:12px;display:flex;gap:14px;flex-wrap:wrap}
ul.legend span.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.status-ok{background:#d9f2e3}td.status-ok-unstable{background:#fff1c2}td.status-incorrect{background:#f9d0d0}
td.status-failed,td.status-oom,td.status-faster_than_physical{background:#f4b6b6}
td small.integrity,td small.config{display:block;color:#555}td.status-unsupported{background:#e6e6e6}
td.status-skipped{background:#eeeeee}td.status-not_configured{background:#dde3ee}td.status-missing{background:#ffffff;color:#a00}
)";

std::string status_text(const ProviderCell& c) {
  if (!c.row) return "missing";
  if (c.row->benchmark_status == BenchmarkStatus::ok && !c.usable()) return "ok (unstable)";
  return std::string(to_string(c.row->benchmark_status));
}

std::string status_class(const std::string& text) {
  return text == "ok (unstable)" ? "status-ok-unstable" : "status-" + text;
}

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

// "providers: a, b: <contract>" for each distinct kernel-only (or eager) contract.
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

void speedup_chart(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  const std::size_t n = set.shapes.size();
  const double step = 48;
  const double left = 120, top = 20;
  const int width = static_cast<int>(left + 20 + step * static_cast<double>(std::max<std::size_t>(n, 8)));
  const int height = 430;
  const double bottom = height - 140.0;
  double lo = 1, hi = 1;
  bool any = false;
  for (const auto& s : set.shapes) {
    for (const auto& v : s.speedup_vs) {
      if (v) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
        any = true;
      }
    }
  }
  svg::Svg chart("speedup-svg", width, height, "Kernel-only speedup of " + set.candidate + " per shape");
  const svg::Axis y = svg::log_axis(lo, hi, bottom, top);
  chart.y_axis(y, left, width - 10, "speedup (log scale)");
  chart.line(left, bottom, width - 10, bottom, "axis");
  chart.line(left, y.map(1.0), width - 10, y.map(1.0), "parity");
  chart.text(width - 12, y.map(1.0) - 4, "parity (1.0)", "tick", "end");
  auto x_of = [&](std::size_t i) { return left + step * (static_cast<double>(i) + 0.5); };
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = set.shapes[i];
    chart.text(x_of(i), bottom + 14, fmt::format("{}: {}", i + 1, s.args_label()), "tick", "end", -45);
  }
  chart.open_group("series", "vs best available");
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = set.shapes[i];
    if (!s.speedup_vs_best) continue;
    chart.marker(svg::Marker::circle, x_of(i), y.map(*s.speedup_vs_best), 7, "#000000",
                 fmt::format("shape {} ({}): {} vs best ({})", i + 1, s.shape.shape_id, rt::speedup(s.speedup_vs_best),
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
                   fmt::format("shape {} ({}): {} {}", i + 1, set.shapes[i].shape.shape_id, rt::speedup(v), label));
    }
    chart.close_group();
  }
  if (!any) chart.text(width / 2.0, top + 30, "no shape has a usable comparison", "note");
  out << "<figure class=\"chart\" id=\"speedup-chart\"><div class=\"plot\">" << legend(items) << chart.str()
      << "</div>\n";
  out << aside(r, contract_lines(set, all_cells(set), true), "kernel-only",
               {"speedup = baseline_median / candidate_median on the kernel-only median (> 1: candidate faster)",
                "used only when both rows are ok, correct and stable (p90/p10 <= 1.2)"});
  out << "</figure>\n";
}

struct RooflineDot {
  std::size_t provider = 0;
  std::string label;
  double intensity = 0;  // flop per byte
  double flops_per_s = 0;
  std::string tooltip;
};

void roofline_chart(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  std::vector<RooflineDot> dots;
  std::set<std::string> dtypes;
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const ShapeComparison& s = set.shapes[i];
    auto add = [&](const ProviderCell& c) {
      const auto t = c.kernel_only_us();
      if (!t || c.row->flops == 0 || c.row->bytes == 0) return;
      const RooflinePoint p = roofline_point(c.row->bytes, c.row->flops, *t, r.ceilings ? &*r.ceilings : nullptr, c.row->dtype);
      dtypes.insert(c.row->dtype);
      dots.push_back({provider_index(set, c.provider), set.provider_label(c.provider),
                      static_cast<double>(c.row->flops) / static_cast<double>(c.row->bytes), p.achieved_flops_per_s,
                      fmt::format("shape {} ({}) {}: {} us, {}, {}{}", i + 1, s.shape.shape_id, set.provider_label(c.provider),
                                  rt::us(t), format_rate(p.achieved_bytes_per_s, "bytes/s"),
                                  format_rate(p.achieved_flops_per_s, "flop/s"),
                                  p.fraction ? fmt::format(", {} of the {} roofline", rt::percent(p.fraction), p.bound)
                                             : std::string())});
    };
    add(s.candidate);
    for (const auto& b : s.baselines) add(b);
  }
  const int width = 760, height = 440;
  const double left = 80, right = width - 20.0, top = 20, bottom = height - 60.0;
  double xlo = 1, xhi = 1, ylo = 1e9, yhi = 1e9;
  bool first = true;
  for (const auto& d : dots) {
    if (first) {
      xlo = xhi = d.intensity;
      ylo = yhi = d.flops_per_s;
      first = false;
    }
    xlo = std::min(xlo, d.intensity);
    xhi = std::max(xhi, d.intensity);
    ylo = std::min(ylo, d.flops_per_s);
    yhi = std::max(yhi, d.flops_per_s);
  }
  const Ceiling* bw = r.ceilings && r.ceilings->memory_bandwidth.available ? &r.ceilings->memory_bandwidth : nullptr;
  std::vector<std::pair<std::string, const Ceiling*>> peaks;
  if (r.ceilings) {
    for (const auto& dt : dtypes) {
      if (const Ceiling* c = matmul_ceiling_for(*r.ceilings, dt)) peaks.push_back({dt, c});
    }
  }
  for (const auto& [dt, c] : peaks) {
    yhi = std::max(yhi, c->rate_per_s);
    if (bw) xhi = std::max(xhi, c->rate_per_s / bw->rate_per_s);
  }
  svg::Svg chart("roofline-svg", width, height, "Roofline: achieved flop rate against the measured ceilings");
  const svg::Axis x = svg::log_axis(xlo, xhi, left, right, 2.0);
  const svg::Axis y = svg::log_axis(ylo / 1e9, yhi / 1e9, bottom, top, 2.0);  // GFLOP/s
  chart.x_axis(x, bottom, top, "arithmetic intensity (flop per byte, log)");
  chart.y_axis(y, left, right, "GFLOP/s (log)");
  std::vector<std::string> ceiling_lines;
  if (bw) {
    ceiling_lines.push_back(fmt::format("memory ceiling {}: {}", format_rate(bw->rate_per_s, bw->unit), bw->method));
    // The memory roof y = bandwidth x intensity, clipped to the plot and to the highest peak's ridge.
    const double b = bw->rate_per_s / 1e9;
    double x_end = std::min(x.hi, y.hi / b);
    if (!peaks.empty()) {
      double ridge = 0;
      for (const auto& [dt, c] : peaks) ridge = std::max(ridge, c->rate_per_s / 1e9 / b);
      x_end = std::min(x_end, ridge);
    }
    const double x_start = std::max(x.lo, y.lo / b);
    if (x_end > x_start) {
      chart.polyline({{x.map(x_start), y.map(b * x_start)}, {x.map(x_end), y.map(b * x_end)}}, "roof");
      chart.text(x.map(x_start) + 6, y.map(b * x_start) - 8,
                 "memory " + format_rate(bw->rate_per_s, bw->unit), "roof-label", "start");
    }
  }
  for (const auto& [dt, c] : peaks) {
    ceiling_lines.push_back(fmt::format("matmul {} ceiling {}: {}", dt, format_rate(c->rate_per_s, c->unit), c->method));
    const double p = c->rate_per_s / 1e9;
    const double x_start = bw ? std::max(x.lo, p / (bw->rate_per_s / 1e9)) : x.lo;
    if (x.hi > x_start) {
      chart.polyline({{x.map(x_start), y.map(p)}, {x.map(x.hi), y.map(p)}}, "roof");
      chart.text(x.map(x.hi) - 4, y.map(p) - 6, fmt::format("{} matmul {}", dt, format_rate(c->rate_per_s, c->unit)),
                 "roof-label", "end");
    }
  }
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
  if (dots.empty()) chart.text(width / 2.0, top + 30, "no usable row with bytes and flops", "note");
  if (!r.ceilings) chart.text(width / 2.0, top + 48, "no measured ceilings for this device", "note");
  if (ceiling_lines.empty()) ceiling_lines.push_back(r.ceilings ? "no ceiling for these dtypes" : r.ceilings_note);
  if (r.ceilings) ceiling_lines.push_back(fmt::format("ceilings measured {} ({})", r.ceilings->measured_at, r.sources.ceilings));
  out << "<figure class=\"chart\" id=\"roofline-chart\"><div class=\"plot\">" << legend(items) << chart.str() << "</div>\n";
  out << aside(r, contract_lines(set, all_cells(set), true), "kernel-only", ceiling_lines);
  out << "</figure>\n";

  // The numbers behind the chart, for the candidate.
  out << "<table id=\"roofline-table\"><tr><th>#</th><th>shape</th><th>args</th><th>candidate us</th>"
         "<th>achieved bandwidth</th><th>of memory ceiling</th><th>achieved flop rate</th><th>of matmul ceiling</th></tr>\n";
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const auto& s = set.shapes[i];
    const auto& p = r.shapes[i].candidate_roofline;
    if (!p) continue;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       i + 1, html(s.shape.shape_id), html(s.args_label()), rt::us(s.candidate.kernel_only_us()),
                       format_rate(p->achieved_bytes_per_s, "bytes/s"), rt::percent(p->memory_fraction),
                       format_rate(p->achieved_flops_per_s, "flop/s"), rt::percent(p->compute_fraction));
  }
  out << "</table>\n";
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
  double lo = 0, hi = 0;
  bool first = true, all_raw = true;
  for (const ProviderCell* c : cells) {
    const Result& m = *c->row->kernel_only;
    const double a = m.samples_us.empty() ? m.summary.min_us : *std::min_element(m.samples_us.begin(), m.samples_us.end());
    const double b = m.samples_us.empty() ? m.summary.max_us : *std::max_element(m.samples_us.begin(), m.samples_us.end());
    all_raw = all_raw && !m.samples_us.empty();
    lo = first ? a : std::min(lo, a);
    hi = first ? b : std::max(hi, b);
    first = false;
  }
  const bool log = lo > 0 && hi / lo > 20;
  const svg::Axis x = log ? svg::log_axis(lo, hi, left, width - 20.0, 1.1) : svg::linear_axis(lo, hi, left, width - 20.0);
  svg::Svg chart(fmt::format("latency-svg-{}", index + 1), width, height,
                 fmt::format("Kernel-only latency distribution, shape {} ({})", index + 1, s.shape.shape_id));
  chart.x_axis(x, bottom, top, log ? "kernel-only time per call (us, log)" : "kernel-only time per call (us)");
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const ProviderCell& c = *cells[k];
    const Result& m = *c.row->kernel_only;
    const std::size_t p = provider_index(set, c.provider);
    const std::string color = svg::series_color(p);
    const double cy = top + row_h * (static_cast<double>(k) + 0.5);
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
  if (cells.empty()) chart.text(width / 2.0, top + 20, "no kernel-only measurement for this shape", "note");
  std::vector<const ProviderCell*> shape_cells = {&s.candidate};
  for (const auto& b : s.baselines) shape_cells.push_back(&b);
  std::vector<std::string> extra = {"box: p25-p75, bar: median, whiskers: p10-p90, ticks: min and max"};
  extra.push_back(all_raw ? "dots: raw samples (at most 120 per provider, every k-th of the sorted samples)"
                          : "some providers have no raw samples in the results: their box is drawn from the summary only");
  out << fmt::format("<figure class=\"chart latency\" id=\"latency-{}\"><div class=\"plot\"><h3>{}. {} {} ({}, {}, {})</h3>",
                     index + 1, index + 1, html(s.shape.shape_id), html(s.args_label()), html(s.shape.model.value_or("no model")),
                     to_string(s.shape.stage), to_string(s.shape.dtype))
      << chart.str() << "</div>\n";
  out << aside(r, contract_lines(set, shape_cells, true), "kernel-only", extra);
  out << "</figure>\n";
}

// The config a provider chose (docs/runner.md, "Configs recorded and replayed"), under the cell's
// status: "config panels of 128 columns (replayed from run R)", its description (else its key)
// shown, the key and the description on hover. Empty for a provider that chooses none.
std::string config_line(const BenchmarkResultRow& row) {
  if (!row.config) return "";
  const ProviderConfig& c = *row.config;
  const std::string pinning =
      c.pinning == ConfigPinning::replayed ? "replayed from run " + c.source : std::string(to_string(c.pinning));
  const std::string hover = c.description.empty() ? "key " + c.key : fmt::format("key {}: {}", c.key, c.description);
  return fmt::format("<small class=\"config\" title=\"{}\">config {} ({})</small>", html(hover),
                     html(c.description.empty() ? c.key : c.description), html(pinning));
}

void coverage_grid(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "<figure class=\"chart\" id=\"coverage-grid\"><div class=\"plot\"><table class=\"coverage\"><tr><th>#</th>"
         "<th>shape</th><th>model</th><th>stage</th><th>args</th><th>dtype</th>";
  out << "<th>" << html(set.candidate) << " (candidate)</th>";
  for (const auto& b : set.baselines) out << "<th>" << html(set.provider_label(b)) << "</th>";
  out << "</tr>\n";
  // The status, below it what was verified (docs/integrity.md) and the config the provider chose.
  auto cell = [&](const ProviderCell& c) {
    const std::string text = status_text(c);
    std::string why = c.usable() ? "" : c.exclusion;
    std::string integrity;
    if (c.row) {
      integrity = std::string(to_string(c.row->integrity.verdict()));
      const std::string failure = c.row->integrity.first_failure();
      if (!failure.empty() && why.find(failure) == std::string::npos) why += (why.empty() ? "" : "; ") + failure;
    }
    return fmt::format("<td class=\"{}\"{}>{}{}{}</td>", status_class(text), why.empty() ? "" : " title=\"" + html(why) + "\"",
                       html(text), integrity.empty() ? "" : "<small class=\"integrity\">" + html(integrity) + "</small>",
                       c.row ? config_line(*c.row) : std::string());
  };
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const auto& s = set.shapes[i];
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", i + 1,
                       html(s.shape.shape_id), html(s.shape.model.value_or("-")), to_string(s.shape.stage),
                       html(s.args_label()), to_string(s.shape.dtype));
    out << cell(s.candidate);
    for (const auto& b : s.baselines) out << cell(b);
    out << "</tr>\n";
  }
  out << "</table></div>\n";
  std::vector<std::string> extra = {"runs: " + [&] {
    std::string ids;
    for (const auto& id : set.run_ids) ids += (ids.empty() ? "" : ", ") + id;
    return ids;
  }()};
  extra.push_back("hover a cell for why it is not used in speedups; under each status: its integrity verdict "
                  "(docs/integrity.md) and, for a provider that chooses one, its config (recorded, replayed or chosen "
                  "afresh: docs/runner.md)");
  const auto eager = contract_lines(set, all_cells(set), false);
  for (const auto& e : eager) extra.push_back("eager " + e);
  out << aside(r, contract_lines(set, all_cells(set), true), "kernel-only", extra);
  out << "</figure>\n";
}

void perturbation_table(std::ostream& out, const BenchmarkReport& r) {
  out << "<table id=\"perturbation-table\"><tr><th>shape</th><th>provider</th><th>measurement</th><th>cupti us</th>"
         "<th>events us (tracing off)</th><th>perturbation</th><th>applied</th><th>why</th></tr>\n";
  for (const PerturbationLine& l : r.perturbation) {
    const InstrumentPerturbation& p = l.perturbation;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       html(l.shape_id), html(l.provider), l.measurement,
                       p.measured ? rt::us(p.cupti_median_us) : "-", p.measured ? rt::us(p.event_median_us) : "-",
                       p.measured ? fmt::format("{:+.3f} us ({:+.2f}%)", p.delta_us, p.delta_pct) : "-",
                       p.applied ? "yes" : "no", html(p.reason));
  }
  out << "</table>\n";
}

void classification_table(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "<table id=\"classification-table\"><tr><th>#</th><th>shape</th><th>args</th><th>stage</th><th>hot</th>"
         "<th>speedup vs best</th><th>class</th><th>rule</th><th>evidence</th><th>likely fix</th><th>eager verdict</th>"
         "<th>profile</th></tr>\n";
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const auto& s = set.shapes[i];
    const ShapeReport& sr = r.shapes[i];
    const Classification& c = sr.classification;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                       "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       i + 1, html(s.shape.shape_id), html(s.args_label()), to_string(s.shape.stage), s.hot ? "yes" : "no",
                       rt::speedup(s.speedup_vs_best), to_string(c.category), c.rule, html(c.evidence), html(c.likely_fix),
                       sr.eager_verdict.empty() ? "-" : sr.eager_verdict,
                       sr.profile ? html(sr.profile->summary_line()) : (s.profiler_candidate() ? "candidate, not run" : "-"));
  }
  out << "</table>\n";
}

}  // namespace

void write_html_report(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  const std::string kernel_list = set.kernel_names();
  const std::string title = fmt::format("caliber report: {}, candidate {}", kernel_list, set.candidate);
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << html(title) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";
  out << "<h1>" << html(title) << "</h1>\n";
  out << fmt::format("<p class=\"decision\" id=\"decision\">Decision: <b>{}</b> (rule {}): {}.</p>\n",
                     to_string(r.decision.verdict), r.decision.rule, html(r.decision.reason));
  if (!r.decision.guardrails.empty()) {
    out << "<ul>";
    for (const auto& g : r.decision.guardrails) out << "<li>Guardrail: " << html(g) << "</li>";
    out << "</ul>\n";
  }
  out << "<ul class=\"meta\">";
  out << "<li>shape ledger: " << html(r.sources.shape_ledger) << "; results: " << html(r.sources.results) << "</li>";
  out << "<li>device: " << (r.device ? html(rt::device(*r.device)) : "unknown") << "</li>";
  out << "<li>ceilings: "
      << (r.ceilings ? html(fmt::format("{} (measured {})", r.sources.ceilings, r.ceilings->measured_at))
                     : html(r.ceilings_note))
      << "</li>";
  if (!set.opaque_baselines.empty()) {
    std::string list;
    for (const auto& o : set.opaque_baselines) list += (list.empty() ? "" : ", ") + o;
    out << "<li>opaque baselines (implementation not visible): " << html(list) << "</li>";
  }
  out << "<li>the decision is taken on hot (model-derived) shapes only; rules in docs/reports.md</li></ul>\n";
  out << "<p class=\"meta\">Charts: <a href=\"#speedup\">speedup</a> | <a href=\"#roofline\">roofline</a> | "
         "<a href=\"#latency\">latency distributions</a> | <a href=\"#coverage\">coverage</a> | "
         "<a href=\"#classification\">classification</a></p>\n";

  out << "<section id=\"speedup\"><h2>Kernel-only speedup per shape</h2>\n";
  speedup_chart(out, r);
  out << "</section>\n<section id=\"roofline\"><h2>Roofline</h2>\n";
  roofline_chart(out, r);
  out << "</section>\n<section id=\"latency\"><h2>Latency distributions per provider (kernel-only)</h2>\n";
  for (std::size_t i = 0; i < set.shapes.size(); ++i) latency_chart(out, r, i);
  out << "</section>\n<section id=\"coverage\"><h2>Coverage</h2>\n";
  coverage_grid(out, r);
  out << "</section>\n<section id=\"classification\"><h2>Classification</h2>\n";
  classification_table(out, r);
  if (!r.perturbation.empty()) {
    out << "</section>\n<section id=\"perturbation\"><h2>Instrument perturbation (cupti against events, tracing "
           "off)</h2>\n";
    perturbation_table(out, r);
  }
  out << "</section>\n<footer class=\"meta\">caliber " << CALIBER_VERSION << "</footer>\n</body></html>\n";
}

}  // namespace caliber
