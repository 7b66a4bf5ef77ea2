// calls_alike (docs/integrity.md, "Calls alike"): the timed calls of a measurement run the same
// work on inputs drawn alike, so they take alike times; a timed sample that took far less than its
// siblings is a call that did less than the work (or did it where the timer does not look),
// wherever it stood, even when no audit fell on it. Judged on the samples' durations, so it needs
// no tracer: it holds for every instrument and backend. Only the fast side is judged: a slow
// sample of honest work (preemption, a clock step) is common, one at a tenth of the typical time is not.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include <optional>

#include "caliber/backend.h"
#include "caliber/integrity.h"

namespace caliber::integrity {

// A timed sample faster than the typical one by more than this factor did not do the same work.
// An order of magnitude: honest multi-threaded host calls on an oversubscribed machine were
// measured more than 4x apart (both cores free for one sample, shared for the others: the median
// falls in the slow mode). Skipped work is far faster than that (a skipped host call: 0.1 us
// against 585 us; a skipped large device call: a launch's few us against hundreds).
inline constexpr double kUnlikeCallFactor = 10.0;
// Below this many timed samples, nothing is judged (too few to say what is typical).
inline constexpr std::size_t kLikenessMinSamples = 4;

struct CallLikeness {
  CheckOutcome outcome = CheckOutcome::not_run;
  std::string detail;
};

// `samples_us`: the stopping rule's samples, in order (per-call durations). The typical time is
// their median; a sample below typical / kUnlikeCallFactor fails the check.
CallLikeness judge_call_likeness(std::span<const double> samples_us);

// The calls inside each sample, where the timer told them apart (cupti: a graph replay's N calls,
// which one window times together; events: the calls of the marked replays at the audits): a
// call that ran other kernels than the sample's first, or
// took less than 1/kUnlikeCallFactor or more than kUnlikeCallFactor times the median of its
// sample's calls (one call did the work, its siblings launched the same kernel and left early),
// fails the check; a pass records the widest spread seen. nullopt when the timer saw no calls
// inside its samples.
std::optional<CallLikeness> judge_calls_within_samples(const CallsWithinSamples& calls);

}  // namespace caliber::integrity
