// The child process runner: exit codes, environment, captured output, and the time limit.
// The limits here are generous multiples of what the commands need, so a loaded machine cannot
// turn a pass into a failure; nothing asserts on elapsed time except an upper bound.
#include "core/subprocess.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run_cli.h"

namespace caliber {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

TEST(Subprocess, AMissingProgramSaysSoOnStderr) {
  SubprocessOptions o;
  o.argv = {"/nonexistent/caliber-cell", "--flag"};
  o.stdout_path = testing_support::temp_path("missing.out");
  o.stderr_path = testing_support::temp_path("missing.err");
  EXPECT_EQ(run_subprocess(o).exit_code, 127);
  EXPECT_EQ(read_file(o.stdout_path), "");
  EXPECT_EQ(read_file(o.stderr_path), "caliber: cannot run /nonexistent/caliber-cell: No such file or directory\n");
  // Looked up in PATH, and not found there either.
  o.argv = {"caliber-no-such-program"};
  EXPECT_EQ(run_subprocess(o).exit_code, 127);
  EXPECT_EQ(read_file(o.stderr_path), "caliber: cannot run caliber-no-such-program: No such file or directory\n");
}

TEST(Subprocess, AnOverrideReplacesAnInheritedVariableAndKeepsTheRest) {
  ::setenv("CALIBER_TEST_INHERITED", "parent", 1);
  ::setenv("CALIBER_TEST_KEPT", "kept", 1);
  SubprocessOptions o;
  o.argv = {"/bin/sh", "-c", "printf '%s %s %s' \"$CALIBER_TEST_INHERITED\" \"$CALIBER_TEST_KEPT\" \"$CALIBER_TEST_NEW\""};
  o.env = {{"CALIBER_TEST_INHERITED", "child"}, {"CALIBER_TEST_NEW", "a=b"}};
  o.capture_stdout = true;
  const SubprocessResult r = run_subprocess(o);
  ::unsetenv("CALIBER_TEST_INHERITED");
  ::unsetenv("CALIBER_TEST_KEPT");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.captured_stdout, "child kept a=b");
  EXPECT_EQ(std::getenv("CALIBER_TEST_INHERITED"), nullptr);  // the parent's own is untouched
}

TEST(Subprocess, AProgramIsLookedUpInThePathOfTheOverrides) {
  const std::string dir = testing_support::temp_path("subprocess-path");
  std::filesystem::create_directories(dir);
  const std::string program = dir + "/caliber-path-probe";
  std::ofstream(program) << "#!/bin/sh\necho found\n";
  ::chmod(program.c_str(), 0755);
  SubprocessOptions o;
  o.argv = {"caliber-path-probe"};
  o.env = {{"PATH", dir + ":/bin:/usr/bin"}};
  o.capture_stdout = true;
  const SubprocessResult r = run_subprocess(o);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.captured_stdout, "found\n");
}

TEST(Subprocess, AChildProcessGetsTheOverridesAndReportsAMissingProgram) {
  SubprocessOptions o;
  o.argv = {"/bin/sh", "-c", "echo \"$CALIBER_TEST_SWITCH\""};
  o.env = {{"CALIBER_TEST_SWITCH", "side"}};
  o.stdout_path = testing_support::temp_path("child-process.log");
  std::filesystem::remove(o.stdout_path);
  ChildProcess ok(o);
  EXPECT_EQ(ok.wait().exit_code, 0);
  EXPECT_EQ(read_file(o.stdout_path), "side\n");
  o.argv = {"/nonexistent/caliber-shard"};
  ChildProcess missing(o);
  EXPECT_EQ(missing.wait().exit_code, 127);
  EXPECT_EQ(missing.result().spawn_error, "exit 127: /nonexistent/caliber-shard could not be executed");
  // Appended to, as a shard's log is.
  EXPECT_EQ(read_file(o.stdout_path), "side\ncaliber: cannot run /nonexistent/caliber-shard: No such file or directory\n");
}

TEST(SubprocessEnvironment, OverridesReplaceInPlaceOrAppendInOrder) {
  const char* parent[] = {"A=1", "PATH=/bin", "B=2", nullptr};
  EXPECT_EQ(environment_with(parent, {}), (std::vector<std::string>{"A=1", "PATH=/bin", "B=2"}));
  EXPECT_EQ(environment_with(parent, {{"PATH", "/opt"}, {"C", "x=y"}, {"A", ""}, {"C", "3"}}),
            (std::vector<std::string>{"A=", "PATH=/opt", "B=2", "C=3"}));
  // A name that is a prefix of another replaces only its own entry.
  const char* similar[] = {"AB=1", "A=2", nullptr};
  EXPECT_EQ(environment_with(similar, {{"A", "9"}}), (std::vector<std::string>{"AB=1", "A=9"}));
}

TEST(SubprocessEnvironment, NamesSetenvRefusesAreLeftOut) {
  const char* parent[] = {"A=1", nullptr};
  EXPECT_EQ(environment_with(parent, {{"", "x"}, {"B=C", "y"}}), (std::vector<std::string>{"A=1"}));
  EXPECT_EQ(environment_with(nullptr, {{"A", "1"}}), (std::vector<std::string>{"A=1"}));
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
