// One writer per --out: the lock names its holder, refuses a second writer and goes away with
// the first.
#include "runner/out_lock.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "caliber/errors.h"

namespace caliber::runner {
namespace {

// Two concurrent `run ... --out D` both exited 0 and left 24 rows for 12 cells.
TEST(OutDirectoryLock, ASecondWriterIsRefusedWithTheHolder) {
  const std::string dir = ::testing::TempDir() + "/caliber_out_lock_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    const OutDirectoryLock first(dir, "pid 1 since 2026-12-01T00:00:00Z: caliber run --out D");
    try {
      const OutDirectoryLock second(dir, "the second");
      FAIL() << "a second lock was granted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                "--out " + dir +
                    " is in use by another caliber run or batch (pid 1 since 2026-12-01T00:00:00Z: caliber run --out D); wait "
                    "for it to finish, or choose another --out");
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/" + kOutLockFileName));  // the holder removes it
  const OutDirectoryLock again(dir, "a later run");  // and the next run gets it
}

}  // namespace
}  // namespace caliber::runner
