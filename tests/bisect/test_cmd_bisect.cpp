// caliber bisect end to end on a history of its own: a git repository of 9 commits whose
// latency.txt holds the latency a small benchmark script reports (google-benchmark JSON, 8
// repetitions with a fixed jitter); commit 5 raises it by 30%.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::run_cli_command;
using testing_support::slurp;
using testing_support::write_text;

constexpr int kCommits = 9;
constexpr int kRaisingCommit = 5;

// The benchmark every commit runs: BM_Latency around the number in latency.txt and BM_Steady
// around 50 us, 8 repetitions each; it also leaves a file that is not results (commit.txt).
constexpr const char* kBenchScript = R"sh(set -e
echo "$CALIBER_BISECT_COMMIT" > "$1/commit.txt"
awk -v lat="$(cat latency.txt)" 'BEGIN {
  printf "{\"context\": {\"executable\": \"bench\"}, \"benchmarks\": [";
  split("BM_Latency BM_Steady", names, " ");
  n = 0;
  for (b = 1; b <= 2; b++) {
    base = (b == 1) ? lat : 50;
    for (i = 0; i < 8; i++) {
      t = base * (1 + ((i * 3) % 8 - 3.5) * 0.002);
      printf "%s{\"name\": \"%s\", \"run_name\": \"%s\", \"run_type\": \"iteration\", \"repetitions\": 8, ", (n++ ? ", " : ""), names[b], names[b];
      printf "\"repetition_index\": %d, \"threads\": 1, \"iterations\": 1000, \"real_time\": %.4f, \"cpu_time\": %.4f, \"time_unit\": \"us\"}", i, t, t;
    }
  }
  print "]}";
}' > "$1/bench.json"
)sh";

// A shell command's stdout without its trailing newline; a failure fails the test.
std::string sh(const std::string& command) {
  testing_support::CliRun r = run_cli_command(command);
  EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

struct History {
  std::string dir;     // the test's own directory
  std::string repo;
  std::string script;  // the benchmark, outside the repository
  std::vector<std::string> shas;  // commit 0 .. 8
};

std::string subject(int i) {
  return i == kRaisingCommit ? "commit 5: raise the latency by 30%" : "commit " + std::to_string(i);
}

// Commit `broken` (if any) adds a file named broken, which the next commit removes.
History make_history(const std::string& name, std::optional<int> broken = std::nullopt) {
  History h;
  h.dir = fresh_dir(name);
  h.repo = h.dir + "/repo";
  h.script = h.dir + "/bench.sh";
  write_text(h.script, kBenchScript);
  fs::create_directories(h.repo);
  const std::string git = "git -C '" + h.repo + "' ";
  sh(git + "init -q");
  sh(git + "config user.name 'caliber test' && " + git + "config user.email test@example.com && " + git +
     "config commit.gpgsign false");
  for (int i = 0; i < kCommits; ++i) {
    write_text(h.repo + "/latency.txt", i >= kRaisingCommit ? "130\n" : "100\n");
    write_text(h.repo + "/notes.txt", "change " + std::to_string(i) + "\n");
    if (broken && i == *broken) write_text(h.repo + "/broken", "this commit does not build\n");
    else fs::remove(h.repo + "/broken");
    sh(git + "add -A && " + git + "commit -q -m '" + subject(i) + "'");
    h.shas.push_back(sh(git + "rev-parse HEAD"));
  }
  return h;
}

std::vector<std::string> bisect_args(const History& h, int good, int bad, const std::string& out,
                                     const std::string& build = "cat latency.txt > /dev/null") {
  return {"bisect", "--repo", h.repo, "--good", h.shas[good], "--bad", h.shas[bad], "--build", build,
          "--run", "sh " + h.script + " {out}", "--out", out};
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string short_sha(const std::string& sha) { return sha.substr(0, 12); }

// The user's side of the repository: HEAD, the working tree's state and the worktrees git knows.
std::string user_state(const History& h) {
  const std::string git = "git -C '" + h.repo + "' ";
  return sh(git + "rev-parse HEAD") + "\n" + sh(git + "status --porcelain --untracked-files=all") + "\n" +
         sh(git + "worktree list --porcelain") + "\n" + slurp(h.repo + "/latency.txt");
}

TEST(BisectCli, NamesTheCommitThatRaisedTheLatencyAndLeavesTheUsersTreeAlone) {
  const History h = make_history("bisect_e2e");
  // A working tree with work in progress: bisect must neither use nor touch it.
  write_text(h.repo + "/latency.txt", "999\n");
  write_text(h.repo + "/scratch.txt", "untracked\n");
  const std::string before = user_state(h);
  const std::string out = h.dir + "/out";

  const auto r = run_caliber(bisect_args(h, 0, kCommits - 1, out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("first bad commit: " + h.shas[kRaisingCommit] + " " + subject(kRaisingCommit)),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("preflight: 1 of 2 rows regressed"), std::string::npos) << r.out;
  EXPECT_EQ(count_of(r.out, "\nstep "), 3u) << r.out;  // 8 commits: log2(8) steps
  EXPECT_NE(r.out.find("step 3: " + short_sha(h.shas[5]) + " bad: BM_Latency [wallclock/pipelined/warm] +30.0% SLOWER"),
            std::string::npos) << r.out;
  EXPECT_EQ(user_state(h), before);
  EXPECT_FALSE(fs::exists(out + "/worktree"));

  const nlohmann::json j = nlohmann::json::parse(slurp(out + "/bisect.json"));
  EXPECT_EQ(j["kind"], "caliber.bisect");
  EXPECT_EQ(j["good"]["commit"], h.shas[0]);
  EXPECT_EQ(j["bad"]["commit"], h.shas[kCommits - 1]);
  EXPECT_EQ(j["regressed_rows"], nlohmann::json::array({"BM_Latency [wallclock/pipelined/warm]"}));
  ASSERT_EQ(j["steps"].size(), 3u);
  const std::vector<std::pair<int, std::string>> steps = {{4, "good"}, {6, "bad"}, {5, "bad"}};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(j["steps"][i]["commit"], h.shas[steps[i].first]) << i;
    EXPECT_EQ(j["steps"][i]["verdict"], steps[i].second) << i;
  }
  EXPECT_EQ(j["first_bad"]["commit"], h.shas[kRaisingCommit]);
  EXPECT_EQ(j["candidates"].size(), 1u);
  const nlohmann::json& evidence = j["evidence"];
  EXPECT_EQ(evidence["last_good"]["commit"], h.shas[4]);
  EXPECT_EQ(evidence["first_bad"]["commit"], h.shas[5]);
  EXPECT_TRUE(fs::equivalent(evidence["first_bad"]["results"].get<std::string>(),
                             out + "/runs/" + short_sha(h.shas[5]) + "/bench.json"));
  EXPECT_TRUE(fs::exists(evidence["last_good"]["results"].get<std::string>()));
  EXPECT_EQ(evidence["comparison"]["kind"], "caliber.comparison");
  EXPECT_EQ(evidence["comparison"]["rows"].size(), 1u);
  // The run command got the commit it measures.
  EXPECT_EQ(slurp(out + "/runs/" + short_sha(h.shas[5]) + "/commit.txt"), h.shas[5] + "\n");
}

// A hook or a shell may point git at the user's repository through the environment; the bisect's
// checkouts must still happen in its own worktree.
TEST(BisectCli, GitDirAndWorkTreeInTheEnvironmentDoNotRedirectTheCheckouts) {
  const History h = make_history("bisect_git_env");
  write_text(h.repo + "/latency.txt", "999\n");
  const std::string before = user_state(h);
  const std::string env = "GIT_DIR='" + h.repo + "/.git' GIT_WORK_TREE='" + h.repo + "' ";
  const auto r = run_cli_command(env + testing_support::caliber_exe() + " " +
                                 testing_support::shell_args(bisect_args(h, 0, kCommits - 1, h.dir + "/out")));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("first bad commit: " + h.shas[kRaisingCommit]), std::string::npos) << r.out;
  EXPECT_EQ(user_state(h), before);
}

TEST(BisectCli, AGoodAndABadCommitWithTheSameLatencyFailThePreflight) {
  const History h = make_history("bisect_no_regression");
  const std::string before = user_state(h);
  const auto r = run_caliber(bisect_args(h, 0, 3, h.dir + "/out"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("preflight: good " + short_sha(h.shas[0]) + " and bad " + short_sha(h.shas[3]) +
                       " do not differ: no row regressed (2 rows: 2 SAME)"),
            std::string::npos) << r.err;
  EXPECT_EQ(count_of(r.out, "step "), 0u);
  EXPECT_EQ(user_state(h), before);  // the worktree is gone on error too
}

TEST(BisectCli, ACommitInBetweenThatFailsToBuildIsSkipped) {
  const History h = make_history("bisect_skip", 6);  // the second commit the search would test
  const std::string out = h.dir + "/out";
  const auto r = run_caliber(bisect_args(h, 0, kCommits - 1, out, "test ! -f broken"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("step 2: " + short_sha(h.shas[6]) + " skip: commit " + short_sha(h.shas[6]) +
                       ": --build 'test ! -f broken' failed with exit code 1"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first bad commit: " + h.shas[kRaisingCommit]), std::string::npos) << r.out;
  EXPECT_EQ(count_of(r.out, "\nstep "), 4u) << r.out;
  EXPECT_TRUE(fs::exists(out + "/logs/" + short_sha(h.shas[6]) + ".build.log"));
}

TEST(BisectCli, ASkippedCommitRightBeforeTheFirstBadOneLeavesTwoCandidates) {
  const History h = make_history("bisect_candidates", kRaisingCommit - 1);
  const std::string out = h.dir + "/out";
  const auto r = run_caliber(bisect_args(h, 0, kCommits - 1, out, "test ! -f broken"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("the first bad commit could be any of:\n  " + h.shas[4] + " " + subject(4) + "\n  " +
                       h.shas[5] + " " + subject(5) + "\n"),
            std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(out + "/bisect.json"));
  EXPECT_TRUE(j["first_bad"].is_null());
  EXPECT_TRUE(j["evidence"].is_null());
  ASSERT_EQ(j["candidates"].size(), 2u);
  EXPECT_EQ(j["candidates"][0]["commit"], h.shas[4]);
  EXPECT_EQ(j["candidates"][1]["commit"], h.shas[5]);
}

TEST(BisectCli, AGoodCommitThatFailsToBuildEndsTheBisect) {
  const History h = make_history("bisect_good_broken", 0);
  const auto r = run_caliber(bisect_args(h, 0, kCommits - 1, h.dir + "/out", "test ! -f broken"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("preflight: good commit " + short_sha(h.shas[0]) +
                       ": --build 'test ! -f broken' failed with exit code 1"),
            std::string::npos) << r.err;
}

// google-benchmark JSON records no architecture: the thresholds file's rules for one apply to its
// rows with --assume-arch, as in caliber compare.
TEST(BisectCli, AThresholdsRuleGatesRowsWithoutAnArchitectureThroughAssumeArch) {
  const History h = make_history("bisect_thresholds");
  const std::string thresholds = h.dir + "/thresholds.json";
  write_text(thresholds, R"({"schema_version": 1, "kind": "caliber.thresholds",
    "report_only": {"relative_pct": 50, "absolute_us": 0},
    "architectures": {"sm_90": {"rules": [
      {"name": "BM_Latency", "relative_pct": 20, "absolute_us": 1, "calibration": "test"}]}}})");
  std::vector<std::string> args = bisect_args(h, 0, kCommits - 1, h.dir + "/out_report_only");
  args.insert(args.end(), {"--thresholds", thresholds});
  const auto report_only = run_caliber(args);  // +30% is within the report-only 50%
  EXPECT_EQ(report_only.exit_code, 1) << report_only.out << report_only.err;
  EXPECT_NE(report_only.err.find("no row regressed"), std::string::npos) << report_only.err;

  args = bisect_args(h, 0, kCommits - 1, h.dir + "/out_gated");
  args.insert(args.end(), {"--thresholds", thresholds, "--assume-arch", "sm_90"});
  const auto gated = run_caliber(args);
  ASSERT_EQ(gated.exit_code, 0) << gated.out << gated.err;
  EXPECT_NE(gated.out.find("first bad commit: " + h.shas[kRaisingCommit]), std::string::npos) << gated.out;
}

TEST(BisectCli, RefusesAGoodCommitThatIsNotAnAncestorOfTheBadOne) {
  const History h = make_history("bisect_not_ancestor");
  const auto r = run_caliber(bisect_args(h, kCommits - 1, 0, h.dir + "/out"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is not an ancestor of --bad"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(h.dir + "/out"));
}

TEST(BisectCli, RefusesAnOutputDirectoryThatIsNotEmpty) {
  const History h = make_history("bisect_out_not_empty");
  fs::create_directories(h.dir + "/out");
  write_text(h.dir + "/out/earlier.txt", "x");
  const auto r = run_caliber(bisect_args(h, 0, kCommits - 1, h.dir + "/out"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("not empty"), std::string::npos) << r.err;
}

TEST(BisectCli, RefusesARevisionThatIsNotACommit) {
  const History h = make_history("bisect_unknown_rev");
  std::vector<std::string> args = bisect_args(h, 0, kCommits - 1, h.dir + "/out");
  args[4] = "no-such-branch";
  const auto r = run_caliber(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--good no-such-branch: not a commit in"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace caliber
