// A command refused after it created its output directory leaves no empty folder behind.
#include "core/created_directories.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace caliber {
namespace {

namespace fs = std::filesystem;

TEST(CreatedDirectories, TheEmptyOnesThisProcessMadeAreRemovedAndNothingElse) {
  const fs::path root = fs::path(::testing::TempDir()) / ("created_dirs_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "there");
  create_output_directories((root / "a" / "b" / "c").string());   // three made, all empty
  create_output_directories((root / "there" / "out").string());   // one made, a file goes in
  create_output_directories((root / "there").string());           // made before: not ours
  std::ofstream(root / "there" / "out" / "rows.jsonl") << "{}\n";
  ASSERT_TRUE(fs::is_directory(root / "a" / "b" / "c"));
  remove_empty_created_directories();
  EXPECT_FALSE(fs::exists(root / "a"));
  EXPECT_TRUE(fs::exists(root / "there" / "out" / "rows.jsonl"));
  EXPECT_TRUE(fs::is_directory(root));
  // Relative paths are noted where they were made.
  const fs::path cwd = fs::current_path();
  fs::current_path(root);
  create_output_directories("rel/out");
  fs::current_path(cwd);
  remove_empty_created_directories();
  EXPECT_FALSE(fs::exists(root / "rel"));
  std::error_code ec;
  create_output_directories("/proc/no/such", ec);
  EXPECT_TRUE(ec);
  fs::remove_all(root);
}

}  // namespace
}  // namespace caliber
