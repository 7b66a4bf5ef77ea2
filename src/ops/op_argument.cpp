// An op argument's range (ops/op_description.h): what DescribedOp::parse_shape accepts.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ops/op_description.h"
#include "ops/op_shape.h"

namespace caliber::ops {
namespace {

// The bounds every argument has: integers in [0, kMaxDim], numbers finite.
double lowest(const OpArgument& a) { return a.integer ? 0.0 : -std::numeric_limits<double>::infinity(); }
double highest(const OpArgument& a) {
  return a.integer ? static_cast<double>(kMaxDim) : std::numeric_limits<double>::infinity();
}

}  // namespace

bool OpArgument::accepts(double v) const {
  if (!std::isfinite(v)) return false;
  if (integer && v != std::floor(v)) return false;
  if (v < lowest(*this) || v > highest(*this)) return false;
  if (min && v < *min) return false;
  if (max && v > *max) return false;
  if (above && !(v > *above)) return false;
  if (below && !(v < *below)) return false;
  return true;
}

std::string OpArgument::range_text() const {
  const auto bound = [](double v) { return std::isinf(v) ? std::string(v < 0 ? "-inf" : "inf") : fmt::format("{}", v); };
  const std::string lo = above ? fmt::format("({}", bound(*above)) : fmt::format("[{}", bound(min ? *min : lowest(*this)));
  const std::string hi = below ? fmt::format("{})", bound(*below)) : fmt::format("{}]", bound(max ? *max : highest(*this)));
  std::string text = lo + ", " + hi;
  if (text.front() == '[' && std::isinf(min ? *min : lowest(*this))) text.front() = '(';
  if (text.back() == ']' && std::isinf(max ? *max : highest(*this))) text.back() = ')';
  return text;
}

}  // namespace caliber::ops
