#include "bisect/bisect_worktree.h"

#include <filesystem>
#include <iostream>
#include <utility>

#include "bisect/git_command.h"
#include "caliber/errors.h"
#include "core/one_line.h"

namespace caliber::bisect {

BisectWorktree::BisectWorktree(std::string repo, std::string path, const std::string& commit)
    : repo_(std::move(repo)), path_(std::move(path)) {
  git_output(repo_, {"worktree", "add", "--quiet", "--detach", path_, commit});
}

BisectWorktree::~BisectWorktree() {
  try {
    const GitOutput g = run_git(repo_, {"worktree", "remove", "--force", "--force", path_});
    if (g.exit_code != 0) {
      // git no longer knows the directory (removed by hand): drop what is left, then git's record.
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
      run_git(repo_, {"worktree", "prune"});
      if (ec) std::cerr << "caliber: warning: cannot remove the bisect worktree " << path_ << ": " << ec.message() << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "caliber: warning: cannot remove the bisect worktree " << path_ << ": " << one_line(e.what()) << '\n';
  }
}

void BisectWorktree::check_out(const std::string& commit) {
  git_output(path_, {"checkout", "--quiet", "--force", "--detach", commit});
}

}  // namespace caliber::bisect
