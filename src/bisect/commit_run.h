// One commit built and run by caliber bisect: its results directory ({out}), its logs, and the
// results the run left there (docs/bisect.md).
#pragma once

#include <string>

#include "bisect/bisect_worktree.h"
#include "bisect/git_history.h"
#include "caliber/errors.h"

namespace caliber::bisect {

// The user's commands, each run with `sh -c` in the worktree.
struct BisectCommands {
  std::string build;
  std::string run;  // "{out}" is replaced by the commit's results directory (in both commands)
};

struct CommitRun {
  CommitInfo commit;
  std::string out_dir;  // <out>/runs/<sha12>: {out} and CALIBER_BISECT_OUT
  std::string input;    // what read_compare_input reads (results_input.h)
};

// A commit's build or run failed, or its run left no results it can be judged by. The message
// names the commit, the command and its exit code (or what is wrong with the results).
class CommitRunError : public Error {
 public:
  using Error::Error;
};

// `text` with every "{out}" replaced by `out_dir`, shell-quoted (as caliber ab's placeholders are),
// so that a directory with spaces or quotes reaches the command as one word.
std::string substitute_out(const std::string& text, const std::string& out_dir);

// Checks `commit` out in the worktree, then runs the build command and the run command there.
// Their output goes to <out_root>/logs/<sha12>.build.log and .run.log; they get CALIBER_BISECT_OUT
// (the fresh results directory <out_root>/runs/<sha12>) and CALIBER_BISECT_COMMIT (the full sha).
CommitRun build_and_run(BisectWorktree& worktree, const CommitInfo& commit, const BisectCommands& commands,
                        const std::string& out_root);

}  // namespace caliber::bisect
