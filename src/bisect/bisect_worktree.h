// The detached git worktree where caliber bisect checks out and builds each commit, so that the
// user's working tree, index and HEAD are never touched (docs/bisect.md).
#pragma once

#include <string>

namespace caliber::bisect {

class BisectWorktree {
 public:
  // `git worktree add --detach PATH COMMIT` in `repo`; PATH must not exist yet.
  BisectWorktree(std::string repo, std::string path, const std::string& commit);
  // Removes the worktree (its directory and git's record of it), also when caliber ends on an
  // error: a failed removal is reported on stderr, never thrown.
  ~BisectWorktree();
  BisectWorktree(const BisectWorktree&) = delete;
  BisectWorktree& operator=(const BisectWorktree&) = delete;

  // Checks `commit` out, detached. Forced: a build that edits tracked files must not stop the
  // next checkout. Untracked files (build outputs) stay, so builds may be incremental.
  void check_out(const std::string& commit);
  const std::string& path() const { return path_; }

 private:
  std::string repo_;
  std::string path_;
};

}  // namespace caliber::bisect
