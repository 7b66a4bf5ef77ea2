#include "bisect/results_input.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "caliber/errors.h"
#include "caliber/run_identity.h"
#include "compare/importers.h"
#include "results/benchmark_results.h"

namespace caliber::bisect {
namespace {

namespace fs = std::filesystem;

bool is_identity_file(const std::string& name) {
  const std::string suffix = ".run_identity.json";
  return name == kRunIdentityFileName ||
         (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0);
}

// Whether caliber compare recognizes the file's content (the name does not matter to it).
bool is_results_file(const std::string& path) {
  try {
    compare::detect_compare_input_format(path);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

std::string find_results_input(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(fs::path(dir) / kBenchmarkResultsFileName, ec)) return dir;
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || is_identity_file(name)) continue;
    ++files;
    if (is_results_file(e.path().string())) found.push_back(name);
  }
  if (ec) throw Error(fmt::format("{}: cannot list the directory: {}", dir, ec.message()));
  std::sort(found.begin(), found.end());
  if (found.size() > 1) {
    throw Error(fmt::format("{}: {} results files ({}): the run must leave exactly one, or a caliber run "
                            "directory", dir, found.size(), fmt::join(found, ", ")));
  }
  if (found.empty()) {
    throw Error(fmt::format("{}: no results: neither {} nor a file caliber compare reads ({} other file{})", dir,
                            kBenchmarkResultsFileName, files, files == 1 ? "" : "s"));
  }
  return (fs::path(dir) / found.front()).string();
}

}  // namespace caliber::bisect
