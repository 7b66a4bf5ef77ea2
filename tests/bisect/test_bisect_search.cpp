// The search of caliber bisect on literal verdict sequences: which commit is first bad, how many
// steps it takes (at most ceil(log2(n))), and how skipped commits are stepped around.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bisect/bisect_search.h"

namespace caliber::bisect {
namespace {

constexpr CommitVerdict G = CommitVerdict::good;
constexpr CommitVerdict B = CommitVerdict::bad;
constexpr CommitVerdict S = CommitVerdict::skip;

// A test that answers from a literal sequence (one verdict per commit; the last, the bad
// revision, is never asked) and records what it was asked.
struct Scripted {
  explicit Scripted(std::vector<CommitVerdict> v) : verdicts(std::move(v)) {}
  std::vector<CommitVerdict> verdicts;
  std::vector<std::size_t> asked;

  SearchOutcome run() {
    return search_first_bad(verdicts.size(), [this](std::size_t i) {
      asked.push_back(i);
      return verdicts.at(i);
    });
  }
};

std::vector<CommitVerdict> first_bad_at(std::size_t count, std::size_t first_bad) {
  std::vector<CommitVerdict> v(count, G);
  for (std::size_t i = first_bad; i < count; ++i) v[i] = B;
  return v;
}

TEST(BisectSearch, EightCommitsTakeThreeStepsInTheOrderOfABinarySearch) {
  Scripted s{first_bad_at(8, 5)};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{3, 5, 4}));
  ASSERT_EQ(found.steps.size(), 3u);
  EXPECT_EQ(found.steps[0].verdict, G);
  EXPECT_EQ(found.steps[1].verdict, B);
  EXPECT_EQ(found.steps[2].verdict, G);
  EXPECT_TRUE(found.exact());
  EXPECT_EQ(found.first_bad, 5u);
  EXPECT_EQ(found.last_good, 4u);
}

TEST(BisectSearch, FindsEveryPositionOfTheFirstBadCommitInAtMostCeilLog2Steps) {
  for (std::size_t n = 1; n <= 40; ++n) {
    const auto bound = static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(n))));
    for (std::size_t f = 0; f < n; ++f) {
      Scripted s{first_bad_at(n, f)};
      const SearchOutcome found = s.run();
      SCOPED_TRACE("n=" + std::to_string(n) + " first bad " + std::to_string(f));
      EXPECT_EQ(found.first_bad, f);
      EXPECT_TRUE(found.exact());
      EXPECT_EQ(found.candidates, (std::vector<std::size_t>{f}));
      if (f == 0) EXPECT_FALSE(found.last_good.has_value());
      else EXPECT_EQ(found.last_good, f - 1);
      EXPECT_LE(found.steps.size(), bound);
      EXPECT_EQ(std::set<std::size_t>(s.asked.begin(), s.asked.end()).size(), s.asked.size()) << "asked twice";
      EXPECT_EQ(std::count(s.asked.begin(), s.asked.end(), n - 1), 0) << "the bad revision is known bad";
    }
  }
}

TEST(BisectSearch, ABadCommitRightAfterGoodNeedsNoStep) {
  Scripted s{{B}};
  const SearchOutcome found = s.run();
  EXPECT_TRUE(found.steps.empty());
  EXPECT_EQ(found.first_bad, 0u);
  EXPECT_FALSE(found.last_good.has_value());
}

TEST(BisectSearch, FirstBadIsTheFirstCommitWhenEveryTestedOneIsBad) {
  Scripted s{{B, B, B, B, B, B, B, B}};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{3, 1, 0}));
  EXPECT_EQ(found.first_bad, 0u);
  EXPECT_FALSE(found.last_good.has_value());
}

TEST(BisectSearch, FirstBadIsTheBadRevisionWhenEveryTestedOneIsGood) {
  Scripted s{{G, G, G, G, G, G, G, B}};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{3, 5, 6}));
  EXPECT_EQ(found.first_bad, 7u);
  EXPECT_EQ(found.last_good, 6u);
}

TEST(BisectSearch, ASkippedCommitIsSteppedAroundAndTheSearchStaysExact) {
  Scripted s{{G, G, G, G, B, S, B, B}};  // index 5 (a failed build) would have been the second probe
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{3, 5, 6, 4}));
  EXPECT_EQ(found.steps[1].verdict, S);
  EXPECT_TRUE(found.exact());
  EXPECT_EQ(found.first_bad, 4u);
  EXPECT_EQ(found.last_good, 3u);
}

TEST(BisectSearch, ASkippedCommitBetweenTheLastGoodAndTheFirstBadOneIsACandidate) {
  Scripted s{{G, G, G, G, G, S, B, B}};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{3, 5, 6, 4}));
  EXPECT_FALSE(found.exact());
  EXPECT_EQ(found.candidates, (std::vector<std::size_t>{5, 6}));
  EXPECT_EQ(found.last_good, 4u);
}

TEST(BisectSearch, SkippedCommitsRightBeforeTheFirstBadOneLeaveSeveralCandidates) {
  Scripted s{{G, S, S, B}};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_FALSE(found.exact());
  EXPECT_EQ(found.candidates, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(found.first_bad, 3u);
  EXPECT_EQ(found.last_good, 0u);
}

TEST(BisectSearch, OnlySkippedCommitsLeaveEveryCommitACandidate) {
  Scripted s{{S, S, S, B}};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked.size(), 3u);
  EXPECT_EQ(found.candidates, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_FALSE(found.last_good.has_value());
}

TEST(BisectSearch, ANonMonotonicSequenceEndsAtAGoodCommitFollowedByABadOne) {
  Scripted s{{G, B, G, B, G, B, G, B}};
  const SearchOutcome found = s.run();
  EXPECT_EQ(s.asked, (std::vector<std::size_t>{3, 1, 0}));
  EXPECT_EQ(found.first_bad, 1u);
  EXPECT_EQ(found.last_good, 0u);
}

TEST(BisectSearch, NoCommitsIsRefused) {
  EXPECT_THROW(search_first_bad(0, [](std::size_t) { return G; }), std::invalid_argument);
}

TEST(BisectSearch, VerdictNames) {
  EXPECT_EQ(to_string(G), "good");
  EXPECT_EQ(to_string(B), "bad");
  EXPECT_EQ(to_string(S), "skip");
}

}  // namespace
}  // namespace caliber::bisect
