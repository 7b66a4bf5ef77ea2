// How caliber run starts its worker (runner/worker_command.h).
#include "runner/worker_command.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "ops/entrypoint.h"
#include "caliber/errors.h"
#include "core/subprocess.h"
#include "runner/result_rows.h"

namespace caliber::runner {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// `name` as exec would find it: a path as it is, a bare name on PATH; empty when not found.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  std::istringstream path(env_or("PATH", "/usr/local/bin:/usr/bin:/bin"));
  for (std::string dir; std::getline(path, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

// The directory holding the caliber Python package that belongs to this build; empty when none.
std::string python_package_directory(const fs::path& executable) {
  // An installed prefix's package first (<prefix>/bin/caliber -> <prefix>/CALIBER_INSTALL_PYTHONDIR),
  // then the source tree of a build tree's executable.
  std::vector<fs::path> candidates;
#ifdef CALIBER_INSTALL_PYTHONDIR
  candidates.push_back(executable.parent_path().parent_path() / CALIBER_INSTALL_PYTHONDIR);
#endif
#ifdef CALIBER_SOURCE_DIR
  candidates.push_back(fs::path(CALIBER_SOURCE_DIR) / "python");
#endif
  std::error_code ec;
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c / "caliber" / "_worker.py", ec)) return c.string();
  }
  return "";
}

}  // namespace

std::vector<std::string> python_provider_entries(const RunPlan& plan) {
  std::vector<std::string> out;
  for (const MatrixProvider& p : plan.matrix.providers) {
    if (!p.enabled || !p.entrypoint || p.entrypoint->kind != Entrypoint::Kind::python) continue;
    out.push_back(resolved_library(*p.entrypoint, plan.matrix.file) + ":" + p.entrypoint->symbol);
  }
  if (plan.described && plan.described->description().reference.kind == Entrypoint::Kind::python) {
    const ops::OpDescription& d = plan.described->description();
    out.push_back(resolved_library(d.reference, d.file) + ":" + d.reference.symbol);
  }
  return out;
}

WorkerCommand worker_command(const RunPlan& plan) {
  WorkerCommand c;
  const std::string self = self_executable();
  const std::vector<std::string> entries = python_provider_entries(plan);
  if (entries.empty()) {
    c.executable = self;
    c.arguments = {"__run-worker"};
    return c;
  }
  const std::string interpreter = env_or("CALIBER_PYTHON", "python3");
  c.executable = find_program(interpreter);
  if (c.executable.empty()) {
    throw UsageError(fmt::format("the run has Python providers ({}), which run in a Python worker, and there is no "
                                 "Python interpreter '{}' (set CALIBER_PYTHON to one; docs/python.md)",
                                 entries.front(), interpreter));
  }
  c.python = true;
  c.arguments = {"-m", "caliber._worker"};
  for (const std::string& e : entries) {
    c.arguments.push_back("--provider");
    c.arguments.push_back(e);
  }
  c.arguments.push_back("--");
  // The run identity's harness is this executable, not the interpreter (runner/worker.cpp).
  c.environment.emplace_back("CALIBER_HARNESS_EXECUTABLE", self);
  if (const std::string dir = python_package_directory(self); !dir.empty()) {
    const std::string old = env_or("PYTHONPATH", "");
    c.environment.emplace_back("PYTHONPATH", old.empty() ? dir : dir + ":" + old);
  }
  // The library of this build when it is beside the executable (a build tree), whatever the
  // environment says: the two sides of an A/B are two builds. Elsewhere the inherited
  // CALIBER_LIBRARY or the installed package's own; the worker refuses a library of another build.
  const fs::path beside = fs::path(self).parent_path() / "libcaliber_c.so";
  std::error_code ec;
  if (fs::is_regular_file(beside, ec)) c.environment.emplace_back("CALIBER_LIBRARY", beside.string());
  c.environment.emplace_back("CALIBER_HARNESS_BUILD", harness_version());
  // @plugins/ is found from the running executable, which in the worker is the interpreter: the
  // worker gets this executable's plugin directory.
  c.environment.emplace_back("CALIBER_PLUGIN_DIR", plugin_directory());
  return c;
}

}  // namespace caliber::runner
