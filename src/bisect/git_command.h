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

}  // namespace caliber::bisect
