#include "runner/out_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::runner {
namespace {

// What the lock file says about its holder (one line), or a placeholder when it cannot be read.
std::string holder_of(int fd) {
  char buffer[1024];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string text = n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.empty() ? "a process that has not written its name yet" : text;
}

bool same_file(int fd, const std::string& path) {
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

OutDirectoryLock::OutDirectoryLock(const std::string& directory, const std::string& holder)
    : path_((std::filesystem::path(directory) / kOutLockFileName).string()) {
  // The holder removes the file when it finishes; a run that opened the file just before that
  // must not keep a lock on a file nobody else sees, so the lock counts only when the path still
  // names the locked file.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) throw Error(fmt::format("{}: cannot create the lock file: {}", path_, std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string who = holder_of(fd);
      ::close(fd);
      if (err == EWOULDBLOCK) {
        throw UsageError(fmt::format("--out {} is in use by another caliber run or batch ({}); wait for it to finish, or "
                                     "choose another --out",
                                     directory, who));
      }
      throw Error(fmt::format("{}: cannot lock: {}", path_, std::strerror(err)));
    }
    if (!same_file(fd, path_)) {
      ::close(fd);
      continue;
    }
    fd_ = fd;
    const std::string line = holder + "\n";
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
      // The lock holds without its note; a second run is still refused, with less to say.
    }
    return;
  }
  throw Error(fmt::format("{}: the lock file keeps being replaced", path_));
}

OutDirectoryLock::~OutDirectoryLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace caliber::runner
