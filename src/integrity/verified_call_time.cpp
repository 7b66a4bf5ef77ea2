#include "integrity/verified_call_time.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace caliber::integrity {

void check_verified_call_time(Integrity& integ, const std::vector<double>& samples, std::size_t from_end,
                              const std::function<double()>& retime) {
  namespace check = integrity_check;
  if (from_end == 0 || from_end > samples.size()) {
    integ.record(check::verified_call_time, CheckOutcome::not_run,
                 fmt::format("no verified call among the {} timed calls", samples.size()));
    return;
  }
  if (samples.size() < 4) {  // too few to say what is typical of the others
    integ.record(check::verified_call_time, CheckOutcome::not_run,
                 fmt::format("{} timed calls: too few to compare the verified call with the others", samples.size()));
    return;
  }
  const std::size_t at = samples.size() - from_end;
  const double verified = samples[at];
  std::vector<double> others(samples.begin(), samples.begin() + static_cast<long>(at));
  std::sort(others.begin(), others.end());
  const double median = others[others.size() / 2];
  const double slowest = others.back();
  // An honest call's verified sample is one more sample of the same work.
  const auto too_slow = [&](double us) { return us > kVerifiedCallSlowdown * median && us > 2.0 * slowest; };
  if (!too_slow(verified)) {
    integ.record(check::verified_call_time, CheckOutcome::passed,
                 fmt::format("the verified call took {:.4g} us; the other timed calls' median {:.4g} us", verified,
                             median));
    return;
  }
  // One slow reading is also what a preempted host thread or an interrupt looks like. Skipping
  // work on a poisoned output is systematic: every poisoned call is slow. The verified call is
  // re-timed (poisoned and judged again); one re-timed call at the speed of the others clears it.
  std::vector<double> again;
  for (std::size_t k = 0; k < kVerifiedCallRetimes && retime; ++k) {
    again.push_back(retime());
    if (!too_slow(again.back())) {
      integ.record(check::verified_call_time, CheckOutcome::passed,
                   fmt::format("the verified call took {:.4g} us once, {:.0f}x the other timed calls' median {:.4g} "
                               "us; re-timed on poisoned outputs it took {:.4g} us (re-timing {} of {}): one slow "
                               "reading, not work skipped",
                               verified, verified / std::max(median, 1e-9), median, again.back(), k + 1,
                               kVerifiedCallRetimes));
      return;
    }
  }
  integ.record(check::verified_call_time, CheckOutcome::failed,
               fmt::format("the verified call (outputs poisoned) took {:.4g} us, {:.0f}x the median {:.4g} us of the "
                           "other {} timed calls and {:.1f}x the slowest{}: the call does less work when its output "
                           "already holds a result",
                           verified, verified / std::max(median, 1e-9), median, others.size(),
                           verified / std::max(slowest, 1e-9),
                           again.empty() ? std::string()
                                         : fmt::format(", and {} more poisoned calls took {:.4g} us", again.size(),
                                                       fmt::join(again, ", "))));
}

}  // namespace caliber::integrity
