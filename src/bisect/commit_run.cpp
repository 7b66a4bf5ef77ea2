#include "bisect/commit_run.h"

#include <filesystem>

#include <fmt/format.h>

#include "ab/cell_command.h"
#include "bisect/results_input.h"
#include "core/one_line.h"
#include "core/subprocess.h"

namespace caliber::bisect {
namespace {

namespace fs = std::filesystem;

struct CommandStep {
  const char* option;  // "--build" or "--run"
  std::string command;  // as given: messages show it so
  std::string log;
};

// Runs one command with `sh -c` in the worktree. The outer shell changes directory, then hands
// the command to a shell of its own, so the command sees exactly what `sh -c CMD` run there sees.
void run_step(const CommandStep& step, const std::string& worktree, const CommitInfo& commit,
              const std::string& out_dir) {
  SubprocessOptions o;
  o.argv = {"sh", "-c", "cd -- \"$1\" && exec sh -c \"$2\"", "caliber-bisect", worktree,
            substitute_out(step.command, out_dir)};
  o.env = {{"CALIBER_BISECT_OUT", out_dir}, {"CALIBER_BISECT_COMMIT", commit.sha}};
  o.stdout_path = step.log;  // stderr too
  const SubprocessResult r = run_subprocess(o);
  if (r.exit_code != 0) {
    throw CommitRunError(fmt::format("commit {}: {} '{}' failed with exit code {} (log: {})", commit.short_sha(),
                                     step.option, quoted_text(step.command), r.exit_code, step.log));
  }
}

}  // namespace

std::string substitute_out(const std::string& text, const std::string& out_dir) {
  const std::string token = "{out}";
  const std::string value = shell_quote(out_dir);
  std::string result;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(token, from)) != std::string::npos; from = at + token.size()) {
    result.append(text, from, at - from).append(value);
  }
  return result.append(text, from, std::string::npos);
}

CommitRun build_and_run(BisectWorktree& worktree, const CommitInfo& commit, const BisectCommands& commands,
                        const std::string& out_root) {
  CommitRun run;
  run.commit = commit;
  run.out_dir = (fs::path(out_root) / "runs" / commit.short_sha()).string();
  const fs::path logs = fs::path(out_root) / "logs";
  // Fresh: a commit is built and run once per bisect, and nothing of an earlier run may pass for
  // its results.
  fs::remove_all(run.out_dir);
  fs::create_directories(run.out_dir);
  fs::create_directories(logs);
  worktree.check_out(commit.sha);
  const std::string log_stem = (logs / commit.short_sha()).string();
  run_step({"--build", commands.build, log_stem + ".build.log"}, worktree.path(), commit, run.out_dir);
  run_step({"--run", commands.run, log_stem + ".run.log"}, worktree.path(), commit,
           run.out_dir);
  try {
    run.input = find_results_input(run.out_dir);
  } catch (const Error& e) {
    throw CommitRunError(fmt::format("commit {}: --run left no results to compare: {}", commit.short_sha(), e.what()));
  }
  return run;
}

}  // namespace caliber::bisect
