// The child process runner: exit codes, environment, captured output, and the time limit.
// The limits here are generous multiples of what the commands need, so a loaded machine cannot
// turn a pass into a failure; nothing asserts on elapsed time except an upper bound.
#include "core/subprocess.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/run_cli.h"

namespace caliber {
namespace {

SubprocessResult sh(const std::string& script, double timeout_s = 0, double kill_after_s = 10) {
  SubprocessOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.capture_stdout = true;
  o.timeout_s = timeout_s;
  o.kill_after_s = kill_after_s;
  return run_subprocess(o);
}

TEST(Subprocess, ReportsExitCodesAndCapturesStdout) {
  auto r = sh("echo hello; exit 3");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.captured_stdout, "hello\n");
  r = sh("kill -9 $$");
  EXPECT_EQ(r.exit_code, 137);  // killed by a signal: 128 + 9, as a shell reports it
  EXPECT_FALSE(r.timed_out);    // ...but not by us: is_timeout_exit still names it
  EXPECT_TRUE(is_timeout_exit(r.exit_code));
}

TEST(Subprocess, SetsTheEnvironmentAndWritesTheLog) {
  SubprocessOptions o;
  o.argv = {"/bin/sh", "-c", "echo \"$CALIBER_TEST_SWITCH\"; echo oops >&2"};
  o.env = {{"CALIBER_TEST_SWITCH", "on"}};
  o.stdout_path = testing_support::temp_path("subprocess.log");
  EXPECT_EQ(run_subprocess(o).exit_code, 0);
  std::ifstream in(o.stdout_path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "on\noops\n");
}

TEST(Subprocess, AMissingProgramIs127) {
  SubprocessOptions o;
  o.argv = {"/nonexistent/caliber-cell"};
  o.stdout_path = "/dev/null";
  const auto r = run_subprocess(o);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.spawn_error, "exit 127: /nonexistent/caliber-cell or a program it runs was not found or could not be executed");
}

TEST(Subprocess, TimeoutTerminatesTheWholeGroupWith124) {
  // The shell starts a grandchild; the limit ends both (the group), not only the shell.
  const auto r = sh("sleep 30 & sleep 30; echo never", 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, kExitTimedOut);
  EXPECT_EQ(r.captured_stdout, "");
  EXPECT_LT(r.elapsed_s, 20);
}

TEST(Subprocess, AChildThatIgnoresTermIsKilledWith137) {
  const auto r = sh("trap '' TERM; while :; do sleep 0.05; done", 0.3, 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, kExitKilled);
  EXPECT_LT(r.elapsed_s, 20);
}

}  // namespace
}  // namespace caliber
