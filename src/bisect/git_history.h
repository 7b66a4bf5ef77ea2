// What caliber bisect asks of the repository's history: revisions resolved to commits, the
// ancestry between the good and the bad one, and the commits in between.
#pragma once

#include <string>
#include <vector>

namespace caliber::bisect {

struct CommitInfo {
  std::string sha;      // the full object name
  std::string subject;  // the first line of the message

  std::string short_sha() const { return sha.substr(0, 12); }
};

// The top of the working tree that holds `dir`; UsageError "--repo DIR: not a git working tree".
std::string repository_root(const std::string& dir);

// The commit `rev` names in `repo`; UsageError "<option> REV: not a commit in REPO" otherwise.
CommitInfo resolve_commit(const std::string& repo, const std::string& rev, const std::string& option);

// Whether `ancestor` is an ancestor of `descendant` (a commit is its own ancestor).
bool is_ancestor(const std::string& repo, const std::string& ancestor, const std::string& descendant);

// `git rev-list --ancestry-path --reverse good..bad`: the commits that descend from `good` and
// lead to `bad`, oldest first; the last one is `bad`.
std::vector<CommitInfo> commits_between(const std::string& repo, const std::string& good, const std::string& bad);

}  // namespace caliber::bisect
