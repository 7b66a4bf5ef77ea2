#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/report_text.h"

namespace caliber::svg {
namespace {

std::string px(double v) { return fmt::format("{:.1f}", v); }

// ` name="value"`, or nothing when the value is empty.
std::string attribute(const char* name, const std::string& value) {
  return value.empty() ? std::string() : fmt::format(" {}=\"{}\"", name, value);
}

std::vector<double> log_ticks_with(const Axis& a, const std::vector<double>& mantissas) {
  std::vector<double> out;
  const int first = static_cast<int>(std::floor(std::log10(a.lo))) - 1;
  const int last = static_cast<int>(std::ceil(std::log10(a.hi))) + 1;
  for (int e = first; e <= last; ++e) {
    for (double m : mantissas) {
      // Rounded so 0.3 prints as 0.3, not 0.30000000000000004.
      const double v = std::stod(fmt::format("{:.6g}", m * std::pow(10.0, e)));
      if (v >= a.lo * (1 - 1e-9) && v <= a.hi * (1 + 1e-9)) out.push_back(v);
    }
  }
  return out;
}

}  // namespace

double Axis::map(double v) const {
  double t;
  if (log) {
    t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  } else {
    t = (v - lo) / (hi - lo);
  }
  return px_lo + t * (px_hi - px_lo);
}

namespace {

// Round steps (1, 2, 2.5, 5 x 10^k) giving about six ticks over [lo, hi].
std::vector<double> linear_ticks(double lo, double hi) {
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  std::vector<double> out;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : std::stod(fmt::format("{:.6g}", v)));
  }
  return out;
}

}  // namespace

std::vector<double> Axis::ticks() const {
  if (!log) return linear_ticks(lo, hi);
  std::vector<double> t = log_ticks_with(*this, {1, 2, 5});
  if (t.size() < 3) t = log_ticks_with(*this, {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9});
  // A range narrower than that reads best with round linear steps.
  if (t.size() < 3) t = linear_ticks(lo, hi);
  return t;
}

Axis log_axis(double min, double max, double px_lo, double px_hi, double pad) {
  Axis a;
  a.log = true;
  if (!(min > 0)) min = max > 0 ? max / 10 : 1;
  if (!(max > 0)) max = min * 10;
  if (max / min < 1.5) {  // a degenerate range still gets a readable axis
    const double mid = std::sqrt(min * max);
    min = mid / 1.25;
    max = mid * 1.25;
  }
  a.lo = min / pad;
  a.hi = max * pad;
  a.px_lo = px_lo;
  a.px_hi = px_hi;
  return a;
}

Axis linear_axis(double min, double max, double px_lo, double px_hi) {
  Axis a;
  double span = max - min;
  if (!(span > 0)) span = std::max(std::abs(max), 1.0) * 0.1;
  a.lo = std::max(0.0, min - 0.05 * span);
  a.hi = max + 0.05 * span;
  a.px_lo = px_lo;
  a.px_hi = px_hi;
  return a;
}

std::string tick_label(double v) {
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  if (a != 0 && a < 1e-3) return fmt::format("{:.0e}", v);
  return fmt::format("{:.6g}", v);
}

std::string series_color(std::size_t i) {
  static const char* colors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999", "#000000"};
  return colors[i % 8];
}

Marker series_marker(std::size_t i) {
  static const Marker markers[] = {Marker::circle, Marker::square, Marker::triangle, Marker::diamond};
  return markers[i % 4];
}

Svg::Svg(std::string id, int width, int height, std::string title)
    : id_(std::move(id)), width_(width), height_(height), title_(std::move(title)) {}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& cls, const std::string& style) {
  body_ += fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>\n", cls, px(x1), px(y1), px(x2),
                       px(y2), attribute("style", style));
}

void Svg::rect(double x, double y, double w, double h, const std::string& cls, const std::string& style,
               const std::string& tooltip) {
  body_ += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}>{}</rect>\n", cls, px(x), px(y),
                       px(std::max(w, 0.0)), px(std::max(h, 0.0)), attribute("style", style),
                       tooltip.empty() ? std::string() : fmt::format("<title>{}</title>", report_text::html(tooltip)));
}

void Svg::marker(Marker m, double x, double y, double size, const std::string& color, const std::string& tooltip,
                 const std::string& cls) {
  ++points_;
  const std::string title = "<title>" + report_text::html(tooltip) + "</title>";
  const std::string style = fmt::format("fill:{};stroke:{}", color, color);
  switch (m) {
    case Marker::circle:
      body_ += fmt::format("<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" style=\"{}\">{}</circle>\n", cls, px(x),
                           px(y), px(size), style, title);
      break;
    case Marker::square:
      body_ += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" style=\"{}\">{}</rect>\n",
                           cls, px(x - size), px(y - size), px(2 * size), px(2 * size), style, title);
      break;
    case Marker::triangle:
      body_ += fmt::format("<path class=\"{}\" d=\"M{},{} L{},{} L{},{} Z\" style=\"{}\">{}</path>\n", cls, px(x),
                           px(y - size * 1.2), px(x - size * 1.1), px(y + size * 0.8), px(x + size * 1.1),
                           px(y + size * 0.8), style, title);
      break;
    case Marker::diamond:
      body_ += fmt::format("<path class=\"{}\" d=\"M{},{} L{},{} L{},{} L{},{} Z\" style=\"{}\">{}</path>\n", cls, px(x),
                           px(y - size * 1.3), px(x + size * 1.1), px(y), px(x), px(y + size * 1.3), px(x - size * 1.1),
                           px(y), style, title);
      break;
  }
}

void Svg::dot(double x, double y, double r, const std::string& color) {
  body_ += fmt::format("<circle class=\"sample\" cx=\"{}\" cy=\"{}\" r=\"{}\" style=\"fill:{}\"/>\n", px(x), px(y), px(r), color);
}

void Svg::text(double x, double y, const std::string& text, const std::string& cls, const std::string& anchor,
               double rotate_deg) {
  const std::string transform =
      rotate_deg != 0 ? fmt::format(" transform=\"rotate({:.0f} {} {})\"", rotate_deg, px(x), px(y)) : "";
  body_ += fmt::format("<text class=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", cls, px(x), px(y), anchor,
                       transform, report_text::html(text));
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, const std::string& cls,
                   const std::string& style) {
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{}{},{}", pts.empty() ? "" : " ", px(x), px(y));
  body_ += fmt::format("<polyline class=\"{}\" points=\"{}\"{}/>\n", cls, pts,
                       attribute("style", style));
}

void Svg::raw(const std::string& element) { body_ += element + "\n"; }

void Svg::open_group(const std::string& cls, const std::string& data_series) {
  body_ += fmt::format("<g class=\"{}\"{}>\n", cls,
                       attribute("data-series", report_text::html(data_series)));
}

void Svg::close_group() { body_ += "</g>\n"; }

void Svg::x_axis(const Axis& a, double y, double grid_top, const std::string& label) {
  line(a.px_lo, y, a.px_hi, y, "axis");
  for (double t : a.ticks()) {
    const double x = a.map(t);
    line(x, grid_top, x, y, "grid");
    line(x, y, x, y + 4, "axis");
    text(x, y + 16, tick_label(t), "tick");
  }
  text((a.px_lo + a.px_hi) / 2, y + 34, label, "axis-label");
}

void Svg::y_axis(const Axis& a, double x, double grid_right, const std::string& label) {
  line(x, a.px_lo, x, a.px_hi, "axis");
  for (double t : a.ticks()) {
    const double y = a.map(t);
    line(x, y, grid_right, y, "grid");
    line(x - 4, y, x, y, "axis");
    text(x - 7, y + 4, tick_label(t), "tick", "end");
  }
  text(x - 46, (a.px_lo + a.px_hi) / 2, label, "axis-label", "middle", -90);
}

std::string Svg::str() const {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" class=\"chart-svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" data-points=\"{}\">\n<title>{}</title>\n{}</svg>\n",
      id_, width_, height_, width_, height_, report_text::html(title_), points_, report_text::html(title_), body_);
}

}  // namespace caliber::svg
