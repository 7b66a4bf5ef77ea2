#include "bisect/git_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "caliber/errors.h"
#include "core/subprocess.h"

namespace caliber::bisect {
namespace {

// A file of its own for git's stderr: its message goes into caliber's one-line error instead of
// being interleaved with caliber's output.
class StderrFile {
 public:
  StderrFile() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/caliber-git-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw Error(fmt::format("cannot create a temporary file {}: {}", pattern, std::strerror(errno)));
    ::close(fd);
    path_ = pattern;
  }
  ~StderrFile() { ::unlink(path_.c_str()); }
  StderrFile(const StderrFile&) = delete;
  StderrFile& operator=(const StderrFile&) = delete;
  const std::string& path() const { return path_; }
  std::string first_line() const {
    std::ifstream in(path_);
    std::string line;
    std::getline(in, line);
    return line;
  }

 private:
  std::string path_;
};

}  // namespace

GitOutput run_git(const std::string& dir, const std::vector<std::string>& args) {
  StderrFile err;
  SubprocessOptions o;
  o.argv = {"git", "-C", dir};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.capture_stdout = true;
  o.stderr_path = err.path();
  const SubprocessResult r = run_subprocess(o);
  if (!r.spawn_error.empty()) throw Error(fmt::format("cannot run git: {}", r.spawn_error));
  GitOutput g;
  g.exit_code = r.exit_code;
  g.out = r.captured_stdout;
  while (!g.out.empty() && g.out.back() == '\n') g.out.pop_back();
  g.error = err.first_line();
  return g;
}

void clear_git_repository_environment() {
  // The location variables of `git rev-parse --local-env-vars` (git 2.39); the configuration ones
  // (GIT_CONFIG_COUNT, ...) stay: a CI's safe.directory may come from them.
  for (const char* name : {"GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
                           "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX",
                           "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE"}) {
    ::unsetenv(name);
  }
}

std::string git_output(const std::string& dir, const std::vector<std::string>& args) {
  GitOutput g = run_git(dir, args);
  if (g.exit_code != 0) {
    throw Error(fmt::format("git {} in {}: exit code {}{}", fmt::join(args, " "), dir, g.exit_code,
                            g.error.empty() ? "" : ": " + g.error));
  }
  return std::move(g.out);
}

}  // namespace caliber::bisect
