// Runs the built caliber binary (CALIBER_EXE) with arguments and captures its exit code, stdout
// and stderr, so CLI behaviour is tested end to end.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace caliber::testing_support {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Single-quotes an argument for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline CliRun run_caliber(const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "/caliber_cli_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++);
  std::string cmd = shell_quote(CALIBER_EXE);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote(base + ".out") + " 2>" + shell_quote(base + ".err");
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace caliber::testing_support
