#include "caliber/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const std::string& data, const std::string& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: write failed: {}", path, errno_text()));
    }
    done += static_cast<std::size_t>(n);
  }
}

void fsync_directory_of(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ostringstream content;
  write(content);
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("{}: cannot create: {}", tmp, errno_text()));
  try {
    write_all(fd, content.str(), tmp);
    if (::fsync(fd) != 0) throw Error(fmt::format("{}: fsync failed: {}", tmp, errno_text()));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: rename failed: {}", path, why));
  }
  fsync_directory_of(path);
}

LineAppender::LineAppender(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open for append: {}", path, errno_text()));
  fsync_directory_of(path);
}

LineAppender::~LineAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void LineAppender::append(const std::string& line) {
  // One write() per line: with O_APPEND the line lands whole or not at all.
  write_all(fd_, line + "\n", path_);
  if (::fdatasync(fd_) != 0) throw Error(fmt::format("{}: fsync failed: {}", path_, errno_text()));
}

void require_writable_file(const std::string& path, const std::string& option) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty path", option));
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw UsageError(fmt::format("{} {}: is a directory", option, path));
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    throw UsageError(fmt::format("{} {}: directory {} does not exist", option, path, dir.string()));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: directory {} is not writable", option, path, dir.string()));
  }
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: file is not writable", option, path));
  }
}

}  // namespace caliber
