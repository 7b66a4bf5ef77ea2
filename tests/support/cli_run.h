// Running the built caliber binary from tests: capture exit code, stdout and stderr
// (support/run_cli_args.h); start it in the background (to kill it mid-run); fresh temporary
// directories.
#pragma once

#include "support/run_cli.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_cli_args.h"

namespace caliber::testing_support {

// run_caliber (an argument list) and CliRun are the ones of support/run_cli_args.h.
using CliResult = CliRun;

inline std::string slurp(const std::string& path) { return read_file_text(path); }

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A directory of its own, emptied first; unique per test process (temp_path), so parallel test
// runs of one name never share it.
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_path("caliber_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Starts CALIBER_EXE with `args`; stdout and stderr go to files in `capture_dir`.
inline pid_t start_caliber(const std::vector<std::string>& args, const std::string& capture_dir) {
  std::vector<std::string> all = {caliber_exe()};
  all.insert(all.end(), args.begin(), args.end());
  const std::string out = capture_dir + "/stdout.txt", err = capture_dir + "/stderr.txt";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

inline int wait_exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline std::size_t count_lines(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace caliber::testing_support
