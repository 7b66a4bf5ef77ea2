#include "bisect/bisect_search.h"

#include <set>
#include <stdexcept>

namespace caliber::bisect {

std::string_view to_string(CommitVerdict v) {
  switch (v) {
    case CommitVerdict::good: return "good";
    case CommitVerdict::bad: return "bad";
    case CommitVerdict::skip: return "skip";
  }
  return "?";
}

namespace {

// Indices are shifted by one so that the good revision is 0 and the list's commit i is i + 1:
// the open interval (good, bad) is then plain unsigned arithmetic.
struct Interval {
  std::size_t good = 0;  // shifted index of the latest known good commit
  std::size_t bad = 0;   // shifted index of the earliest known bad commit
};

// The untested, unskipped commit of (good, bad) nearest its middle (the later one on a tie of
// distance, as the middle itself rounds down); none when only skipped commits are left.
std::optional<std::size_t> next_probe(const Interval& in, const std::set<std::size_t>& skipped) {
  if (in.bad - in.good < 2) return std::nullopt;
  const std::size_t mid = in.good + (in.bad - in.good) / 2;
  for (std::size_t d = 0;; ++d) {
    const bool later = mid + d < in.bad, earlier = d < mid - in.good;
    if (!later && !earlier) break;
    if (later && !skipped.count(mid + d)) return mid + d;
    if (d > 0 && earlier && !skipped.count(mid - d)) return mid - d;
  }
  return std::nullopt;
}

}  // namespace

SearchOutcome search_first_bad(std::size_t count, const CommitTest& test) {
  if (count == 0) throw std::invalid_argument("search_first_bad: no commits between good and bad");
  Interval in{0, count};
  std::set<std::size_t> skipped;
  SearchOutcome outcome;
  while (const auto probe = next_probe(in, skipped)) {
    const CommitVerdict v = test(*probe - 1);
    outcome.steps.push_back({*probe - 1, v});
    if (v == CommitVerdict::bad) in.bad = *probe;
    else if (v == CommitVerdict::good) in.good = *probe;
    else skipped.insert(*probe);
  }
  if (in.good > 0) outcome.last_good = in.good - 1;
  outcome.first_bad = in.bad - 1;
  for (std::size_t s : skipped) {
    if (s > in.good && s < in.bad) outcome.candidates.push_back(s - 1);
  }
  outcome.candidates.push_back(outcome.first_bad);
  return outcome;
}

}  // namespace caliber::bisect
