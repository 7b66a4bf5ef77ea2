// verified_call_time (docs/integrity.md): the verified call runs on poisoned outputs; a call that
// skips its work whenever its output already holds a result is fast on every timed call but that
// one. Its sample is compared with the other timed calls', and a suspiciously slow one is re-timed
// before it is condemned.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "caliber/integrity.h"

namespace caliber::integrity {

// How much slower than the other timed calls' median the verified call may be before it is
// taken for a call that skips its work when its output already holds a result (and it must also
// be twice the slowest of them: one slow sample of honest work is rarely both).
inline constexpr double kVerifiedCallSlowdown = 20.0;
// How many more poisoned calls a suspiciously slow verified call gets before the check fails.
inline constexpr std::size_t kVerifiedCallRetimes = 3;

// The poisoned verified sample is `from_end` samples from the end of `samples_us`, the other timed
// calls before it. retime() runs the poisoned verified call once more and returns its duration
// (microseconds). Records nothing below four samples (too few to say what is typical).
void check_verified_call_time(Integrity& integ, const std::vector<double>& samples_us, std::size_t from_end,
                              const std::function<double()>& retime);

}  // namespace caliber::integrity
