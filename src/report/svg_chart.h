// A small SVG writer for the HTML report: axes (linear or log), markers, lines, text. Output is
// deterministic text (fixed decimals), so reports diff cleanly and tests can read them.
#pragma once

#include <string>
#include <vector>

namespace caliber::svg {

// A data range mapped onto a pixel range.
struct Axis {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double px_lo = 0;  // pixel of lo
  double px_hi = 1;  // pixel of hi
  double map(double v) const;
  // Tick values inside [lo, hi]: 1-2-5 per decade on a log axis (denser when the range is
  // narrow), round steps on a linear one.
  std::vector<double> ticks() const;
};

// A log axis around [min, max] (positive), widened by `pad` (a factor) on both sides.
Axis log_axis(double min, double max, double px_lo, double px_hi, double pad = 1.25);
// A linear axis around [min, max], widened by 5% of the span on both sides.
Axis linear_axis(double min, double max, double px_lo, double px_hi);

// Tick label: "0.5", "1", "20", "50k", "2M"; "1e-04" for tiny values.
std::string tick_label(double v);

// The colour and marker of series i (Okabe-Ito colours, colour-blind safe).
std::string series_color(std::size_t i);
enum class Marker { circle, square, triangle, diamond };
Marker series_marker(std::size_t i);

class Svg {
 public:
  Svg(std::string id, int width, int height, std::string title);
  int width() const { return width_; }
  int height() const { return height_; }

  void line(double x1, double y1, double x2, double y2, const std::string& cls, const std::string& style = "");
  void rect(double x, double y, double w, double h, const std::string& cls, const std::string& style = "",
            const std::string& tooltip = "");
  void marker(Marker m, double x, double y, double size, const std::string& color, const std::string& tooltip,
              const std::string& cls = "point");
  // A small data dot without a tooltip (raw samples); not counted in data-points.
  void dot(double x, double y, double r, const std::string& color);
  void text(double x, double y, const std::string& text, const std::string& cls, const std::string& anchor = "middle",
            double rotate_deg = 0);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& cls,
                const std::string& style = "");
  void raw(const std::string& element);  // already-escaped SVG
  // Counts a data element drawn with rect/line (a box of a distribution) in data-points.
  void count_point() { ++points_; }
  // <g> grouping, e.g. one per series.
  void open_group(const std::string& cls, const std::string& data_series = "");
  void close_group();

  // Axes with grid lines, ticks and labels, on the plot area [x0, x1] x [y0, y1] (y0 at the top).
  void x_axis(const Axis& a, double y, double grid_top, const std::string& label);
  void y_axis(const Axis& a, double x, double grid_right, const std::string& label);

  // The whole <svg> element; `points` = number of data markers drawn (data-points attribute).
  std::string str() const;

 private:
  std::string id_;
  int width_;
  int height_;
  std::string title_;
  std::string body_;
  std::size_t points_ = 0;
};

}  // namespace caliber::svg
