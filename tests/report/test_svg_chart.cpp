// The SVG writer's axes: mapping and ticks on literal ranges.
#include <gtest/gtest.h>

#include "report/svg_chart.h"

namespace caliber::svg {
namespace {

TEST(SvgChart, LogAxisMapsDecadesEvenly) {
  Axis a;
  a.lo = 1;
  a.hi = 100;
  a.log = true;
  a.px_lo = 0;
  a.px_hi = 200;
  EXPECT_DOUBLE_EQ(a.map(10), 100);
  EXPECT_DOUBLE_EQ(a.map(100), 200);
  EXPECT_EQ(a.ticks(), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
}

TEST(SvgChart, NarrowLogAxisGetsDenserTicks) {
  Axis a;
  a.lo = 0.7;
  a.hi = 1.3;
  a.log = true;
  EXPECT_EQ(a.ticks(), (std::vector<double>{0.7, 0.8, 0.9, 1}));
  a.lo = 0.95;
  a.hi = 1.05;
  const auto t = a.ticks();  // 1-2-5 and 1..9 give one tick: fall back to tenths
  EXPECT_EQ(t, (std::vector<double>{0.96, 0.98, 1, 1.02, 1.04}));
}

TEST(SvgChart, LinearAxisHasRoundSteps) {
  Axis a;
  a.lo = 0;
  a.hi = 12;
  a.px_lo = 100;
  a.px_hi = 0;
  EXPECT_DOUBLE_EQ(a.map(6), 50);
  EXPECT_EQ(a.ticks(), (std::vector<double>{0, 2, 4, 6, 8, 10, 12}));
}

TEST(SvgChart, TickLabels) {
  EXPECT_EQ(tick_label(0.5), "0.5");
  EXPECT_EQ(tick_label(20), "20");
  EXPECT_EQ(tick_label(50000), "50k");
  EXPECT_EQ(tick_label(2e6), "2M");
  EXPECT_EQ(tick_label(1e-4), "1e-04");
}

TEST(SvgChart, SvgCountsDataPointsAndEscapesText) {
  Svg s("id-1", 100, 50, "a < b");
  s.marker(Marker::circle, 1, 2, 3, "#000", "x & y");
  s.marker(Marker::diamond, 1, 2, 3, "#000", "t");
  s.dot(1, 1, 1, "#000");
  const std::string out = s.str();
  EXPECT_NE(out.find("data-points=\"2\""), std::string::npos);
  EXPECT_NE(out.find("<title>a &lt; b</title>"), std::string::npos);
  EXPECT_NE(out.find("<title>x &amp; y</title>"), std::string::npos);
}

}  // namespace
}  // namespace caliber::svg
