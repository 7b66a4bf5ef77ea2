// The git queries of caliber bisect, each one `git -C DIR ...` in a child process: caliber links
// no git library, and the user's git (its configuration, its hooks' absence in queries) is the
// one that bisects.
#pragma once

#include <string>
#include <vector>

namespace caliber::bisect {

struct GitOutput {
  int exit_code = -1;
  std::string out;    // stdout, trailing newlines removed
  std::string error;  // the first line git wrote to stderr, for messages
};

// Runs `git -C dir args...` to completion. Never throws for git's own failure (exit_code says);
// throws Error when git cannot be started.
GitOutput run_git(const std::string& dir, const std::vector<std::string>& args);

// The same; a non-zero exit throws Error "git <args> in <dir>: exit code N: <git's message>".
std::string git_output(const std::string& dir, const std::vector<std::string>& args);

// Removes from this process's environment the variables that point git at another repository,
// work tree or index (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ...: the location part of git's
// local environment, which git itself clears before it works in a submodule). Set by a hook or a
// shell, they would make the checkouts meant for the bisect's worktree happen in the user's
// working tree; every git command and every build and run of the bisect runs without them.
void clear_git_repository_environment();

}  // namespace caliber::bisect
