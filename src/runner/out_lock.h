// One writer per run directory: caliber run (and caliber batch, on its campaign directory) holds an
// exclusive lock on DIR/.caliber-run.lock for as long as it writes into DIR. The file names its holder; a second run on the same directory
// is refused with that name instead of interleaving rows of two runs.
#pragma once

#include <string>

namespace caliber::runner {

inline constexpr const char* kOutLockFileName = ".caliber-run.lock";

class OutDirectoryLock {
 public:
  // Takes the lock of `directory` (which must exist) and writes `holder` into the lock file.
  // Throws UsageError naming the current holder when another process has it. The lock is a
  // flock(2): it goes away with its process, so a killed run leaves no stale lock.
  OutDirectoryLock(const std::string& directory, const std::string& holder);
  ~OutDirectoryLock();  // removes the lock file, then releases
  OutDirectoryLock(const OutDirectoryLock&) = delete;
  OutDirectoryLock& operator=(const OutDirectoryLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace caliber::runner
