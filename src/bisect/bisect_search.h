// The binary search of caliber bisect over the commits from a good revision to a bad one
// (docs/bisect.md). Pure: the test of one commit is injected, so the search is tested on literal
// verdict sequences.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace caliber::bisect {

// good: the regressed rows did not regress; bad: one of them did; skip: the commit could not be
// tested (its build or run failed, or a regressed row could not be compared), like git bisect skip.
enum class CommitVerdict { good, bad, skip };
std::string_view to_string(CommitVerdict v);  // "good", "bad", "skip"

struct SearchStep {
  std::size_t index = 0;  // into the commit list
  CommitVerdict verdict = CommitVerdict::good;
};

struct SearchOutcome {
  std::vector<SearchStep> steps;  // in the order the commits were tested
  // The latest commit found good; none: the good revision itself (before the list).
  std::optional<std::size_t> last_good;
  // The earliest commit found bad (the last one, the bad revision, when no tested one was).
  std::size_t first_bad = 0;
  // The commits that may be the first bad one, oldest first: first_bad alone when the search is
  // exact; the skipped commits after last_good, then first_bad, when only skipped ones are left.
  std::vector<std::size_t> candidates;

  bool exact() const { return candidates.size() == 1; }
};

// Tests one commit of the list, by its index.
using CommitTest = std::function<CommitVerdict(std::size_t index)>;

// Searches a list of `count` commits, oldest first, whose last one (the bad revision) is known
// bad and whose parent of the first (the good revision) is known good. Each commit is tested at
// most once and the last one never; without skips the search takes at most ceil(log2(count))
// steps. A skipped commit is stepped around: the untested commit nearest the middle is tested
// instead. A verdict sequence that is not monotonic (good after bad) still ends at a good commit
// directly followed, skips aside, by a bad one.
SearchOutcome search_first_bad(std::size_t count, const CommitTest& test);

}  // namespace caliber::bisect
