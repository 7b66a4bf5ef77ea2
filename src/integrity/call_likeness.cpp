#include "integrity/call_likeness.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace caliber::integrity {
namespace {

// The lower median of a non-empty set.
double median(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// At most this many sample indices are named in a failure.
constexpr std::size_t kNamed = 8;

}  // namespace

CallLikeness judge_call_likeness(std::span<const double> samples_us) {
  if (samples_us.size() < kLikenessMinSamples) {
    return {CheckOutcome::not_run,
            fmt::format("{} timed samples: too few to say what a call typically takes", samples_us.size())};
  }
  const double typical = median({samples_us.begin(), samples_us.end()});
  const double floor = typical / kUnlikeCallFactor;
  std::vector<std::size_t> fast;
  double fastest = typical;
  for (std::size_t i = 0; i < samples_us.size(); ++i) {
    if (samples_us[i] < floor) fast.push_back(i);
    fastest = std::min(fastest, samples_us[i]);
  }
  if (fast.empty()) {
    return {CheckOutcome::passed,
            fmt::format("every one of {} timed samples took at least 1/{:g} of their median, {:.4g} us (the fastest "
                        "{:.4g} us)",
                        samples_us.size(), kUnlikeCallFactor, typical, fastest)};
  }
  const std::size_t named = std::min(fast.size(), kNamed);
  return {CheckOutcome::failed,
          fmt::format("calls do not look alike: {} of {} timed samples took less than 1/{:g} of their median, {:.4g} "
                      "us (the fastest {:.4g} us; samples {}{}): calls that did less than the work of the others",
                      fast.size(), samples_us.size(), kUnlikeCallFactor, typical, fastest,
                      fmt::join(fast.begin(), fast.begin() + static_cast<std::ptrdiff_t>(named), ", "),
                      fast.size() > named ? ", ..." : "")};
}

}  // namespace caliber::integrity
