// Runs a shell command for CLI tests: its exit status, standard output and standard error.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace caliber::testing_support {

struct CommandOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline CommandOutput run_command(const std::string& command) {
  static int counter = 0;
  const std::string err_file = ::testing::TempDir() + "/caliber_cmd_stderr_" + std::to_string(++counter);
  CommandOutput r;
  FILE* p = popen((command + " 2>" + err_file).c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(err_file.c_str());
  return r;
}

}  // namespace caliber::testing_support
