// Sweeps as axes: the product, its order, and what is refused (docs/ledger.md).
#include "ledger/shape_axes.h"

#include <gtest/gtest.h>

#include "caliber/errors.h"

namespace caliber::ledger {
namespace {

std::string error_of(const std::vector<std::string>& shapes, const std::vector<std::string>& axes) {
  try {
    sweep_shape_texts(shapes, axes);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ShapeAxes, TheProductOfTheAxesTheFirstVaryingSlowest) {
  EXPECT_EQ(sweep_shape_texts({}, {"m=1,7,4096", "n=128,5504"}),
            (std::vector<std::string>{"m=1,n=128", "m=1,n=5504", "m=7,n=128", "m=7,n=5504", "m=4096,n=128",
                                      "m=4096,n=5504"}));
  EXPECT_EQ(sweep_shape_texts({"m=4,n=8", "m=16,n=8"}, {}), (std::vector<std::string>{"m=4,n=8", "m=16,n=8"}));
}

TEST(ShapeAxes, EachShapeGetsEveryCombination) {
  EXPECT_EQ(sweep_shape_texts({"n=8,eps=1e-5", "n=16"}, {"m=1,2"}),
            (std::vector<std::string>{"n=8,eps=1e-5,m=1", "n=8,eps=1e-5,m=2", "n=16,m=1", "n=16,m=2"}));
}

TEST(ShapeAxes, MalformedRepeatedOrOverlappingAxesAndHugeSweepsAreRefused) {
  EXPECT_EQ(error_of({}, {"m"}), "--axis m: expected NAME=V1,V2,... (e.g. --axis m=1,7,4096)");
  EXPECT_EQ(error_of({}, {"=1,2"}), "--axis =1,2: expected NAME=V1,V2,... (e.g. --axis m=1,7,4096)");
  EXPECT_EQ(error_of({}, {"m="}), "--axis m=: expected NAME=V1,V2,... (e.g. --axis m=1,7,4096)");
  EXPECT_EQ(error_of({}, {"m=1,,2"}), "--axis m=1,,2: an empty value");
  EXPECT_EQ(error_of({}, {"m=1", "m=2"}), "--axis m=2: axis m is given twice");
  EXPECT_EQ(error_of({"m=4,n=8"}, {"m=1,2"}), "--axis m: --shape m=4,n=8 gives m already");
  const std::string thousand = [] {
    std::string s = "m=0";
    for (int i = 1; i < 1000; ++i) s += "," + std::to_string(i);
    return s;
  }();
  EXPECT_EQ(error_of({}, {thousand, "n" + thousand.substr(1)}), "--axis: the sweep makes more than 100000 shapes");
  EXPECT_EQ(sweep_shape_texts({}, {thousand, "n=1,2,3"}).size(), 3000u);
}

}  // namespace
}  // namespace caliber::ledger
