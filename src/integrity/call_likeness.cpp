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

namespace {

// The first call of `sample` outside [median / factor, median x factor], described; "" when none.
std::string unlike_call(const std::vector<double>& sample, std::size_t index) {
  if (sample.size() < 2) return {};
  const double typical = median(sample);
  for (std::size_t j = 0; j < sample.size(); ++j) {
    if (sample[j] < typical / kUnlikeCallFactor || sample[j] > typical * kUnlikeCallFactor) {
      return fmt::format("call {} of sample {} took {:.4g} us where its {} calls' median took {:.4g} us", j, index,
                         sample[j], sample.size(), typical);
    }
  }
  return {};
}

// The call farthest from its sample's median, as a factor >= 1 (either side): what honest calls
// inside one sample spread over, recorded so that the factor can be set from measured spreads.
struct Spread {
  std::size_t sample = 0;
  std::size_t call = 0;
  double ratio = 1;
};
Spread widest_spread(const std::vector<std::vector<double>>& call_us) {
  Spread w;
  for (std::size_t i = 0; i < call_us.size(); ++i) {
    if (call_us[i].empty()) continue;
    const double typical = median(call_us[i]);
    for (std::size_t j = 0; j < call_us[i].size(); ++j) {
      const double x = call_us[i][j];
      const double ratio = x <= 0 || typical <= 0 ? (x == typical ? 1.0 : kUnlikeCallFactor)
                                                  : std::max(x / typical, typical / x);
      if (ratio > w.ratio) w = {i, j, ratio};
    }
  }
  return w;
}

}  // namespace

std::optional<CallLikeness> judge_calls_within_samples(const CallsWithinSamples& calls) {
  if (!calls.unlike_work.empty()) {
    return CallLikeness{CheckOutcome::failed,
                        "calls do not look alike: " + calls.unlike_work + " (the calls of one sample ran different work)"};
  }
  for (std::size_t i = 0; i < calls.call_us.size(); ++i) {
    if (std::string why = unlike_call(calls.call_us[i], i); !why.empty()) {
      return CallLikeness{CheckOutcome::failed,
                          fmt::format("calls do not look alike: {} (more than {:g}x apart: one call did work its "
                                      "siblings did not)",
                                      why, kUnlikeCallFactor)};
    }
  }
  if (calls.call_us.empty()) {
    if (calls.not_told_apart == 0) return std::nullopt;
    return CallLikeness{CheckOutcome::not_run, fmt::format("the calls inside {} samples could not be told apart",
                                                           calls.not_told_apart)};
  }
  const Spread widest = widest_spread(calls.call_us);
  std::string detail = fmt::format("the {} calls inside each of {} samples{} took within {:g}x of their sample's "
                                   "median{} (the widest: call {} of sample {} at {:.3g}x)",
                                   calls.call_us.front().size(), calls.call_us.size(),
                                   calls.told_apart_by.empty() ? "" : " (" + calls.told_apart_by + ")",
                                   kUnlikeCallFactor, calls.work_compared ? ", and ran the same kernels" : "",
                                   widest.call, widest.sample, widest.ratio);
  if (calls.not_told_apart > 0) detail += fmt::format(" ({} more samples could not be split)", calls.not_told_apart);
  return CallLikeness{CheckOutcome::passed, std::move(detail)};
}

}  // namespace caliber::integrity
