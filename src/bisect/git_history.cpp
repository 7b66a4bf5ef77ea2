#include "bisect/git_history.h"

#include <sstream>

#include <fmt/format.h>

#include "bisect/git_command.h"
#include "caliber/errors.h"

namespace caliber::bisect {

std::string repository_root(const std::string& dir) {
  const GitOutput g = run_git(dir, {"rev-parse", "--show-toplevel"});
  if (g.exit_code != 0 || g.out.empty()) {
    throw UsageError(fmt::format("--repo {}: not a git working tree{}", dir, g.error.empty() ? "" : " (" + g.error + ")"));
  }
  return g.out;
}

CommitInfo resolve_commit(const std::string& repo, const std::string& rev, const std::string& option) {
  // What the user typed is a revision even when it starts with '-'; once resolved, every later git
  // command gets a full sha.
  const GitOutput g = run_git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"});
  if (g.exit_code != 0 || g.out.empty()) throw UsageError(fmt::format("{} {}: not a commit in {}", option, rev, repo));
  CommitInfo c;
  c.sha = g.out;
  c.subject = git_output(repo, {"log", "-1", "--format=%s", c.sha});
  return c;
}

bool is_ancestor(const std::string& repo, const std::string& ancestor, const std::string& descendant) {
  const GitOutput g = run_git(repo, {"merge-base", "--is-ancestor", ancestor, descendant});
  if (g.exit_code == 0) return true;
  if (g.exit_code == 1) return false;
  throw Error(fmt::format("git merge-base --is-ancestor {} {} in {}: exit code {}{}", ancestor, descendant, repo,
                          g.exit_code, g.error.empty() ? "" : ": " + g.error));
}

std::vector<CommitInfo> commits_between(const std::string& repo, const std::string& good, const std::string& bad) {
  // One query for every sha and subject: a unit separator cannot occur in either.
  const std::string text = git_output(
      repo, {"log", "--ancestry-path", "--reverse", "--topo-order", "--format=%H%x1f%s", good + ".." + bad});
  std::vector<CommitInfo> commits;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto sep = line.find('\x1f');
    if (sep == std::string::npos) throw Error(fmt::format("git log in {}: unexpected line '{}'", repo, line));
    commits.push_back({line.substr(0, sep), line.substr(sep + 1)});
  }
  return commits;
}

}  // namespace caliber::bisect
