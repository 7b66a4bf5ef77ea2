// Runs the built caliber binary and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace caliber::testing_support {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The binary under test: $CALIBER_EXE when set (binaries carried to another machine), else the
// path CMake compiled in.
inline std::string caliber_exe() {
  const char* env = std::getenv("CALIBER_EXE");
  return env && *env ? env : CALIBER_EXE;
}

// Runs a shell command line whose stdout and stderr are captured (stderr to a temporary file).
// The source tree (matrices/, schemas/, data/): $CALIBER_SOURCE_DIR when set (tests carried to
// another machine), else the path CMake compiled in.
inline std::string source_dir() {
  const char* env = std::getenv("CALIBER_SOURCE_DIR");
  return env && *env ? env : CALIBER_SOURCE_DIR;
}

inline CliRun run_cli_command(const std::string& command) {
  static int counter = 0;
  const std::string err_path =
      ::testing::TempDir() + "/cli-stderr-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string cmd = command + " 2>" + err_path;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(err_path.c_str());
  return r;
}

inline CliRun run_cli(const std::string& args) { return run_cli_command(caliber_exe() + " " + args); }

// Runs caliber with `dir` as the working directory (relative paths in outputs stay relative).
inline CliRun run_cli_in(const std::string& dir, const std::string& args) {
  return run_cli_command("cd '" + dir + "' && " + caliber_exe() + " " + args);
}

inline bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// The whole file ("" when it cannot be read).
inline std::string read_file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/" + std::to_string(::getpid()) + "-" + name;
}

}  // namespace caliber::testing_support
