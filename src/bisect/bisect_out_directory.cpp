#include "bisect/bisect_out_directory.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/created_directories.h"

namespace caliber::bisect {

namespace fs = std::filesystem;

std::string prepare_out_directory(const std::optional<std::string>& out) {
  if (!out) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = (fs::path(tmp && *tmp ? tmp : "/tmp") / "caliber-bisect-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      throw Error(fmt::format("cannot create a directory {}: {}", pattern, std::strerror(errno)));
    }
    return fs::absolute(pattern).lexically_normal().string();
  }
  if (out->empty()) throw UsageError("--out must not be empty");
  const fs::path dir = fs::absolute(*out).lexically_normal();
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw UsageError(fmt::format("--out {}: not a directory", *out));
    if (!fs::is_empty(dir, ec)) {
      throw UsageError(fmt::format("--out {}: not empty (a bisect writes runs/, logs/ and bisect.json into a "
                                   "directory of its own)", *out));
    }
  }
  create_output_directories(dir.string(), "--out");
  return dir.string();
}

}  // namespace caliber::bisect
