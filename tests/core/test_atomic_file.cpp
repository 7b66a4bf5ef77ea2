// Outputs: atomic, only onto regular files or new paths, and multi-file outputs all or nothing.
#include "core/atomic_file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string scratch_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/caliber_atomic_" + name + "_" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(written)";
}

// bench --json onto a device node (/dev/full as root) replaced the node with a regular file; a
// FIFO is the same case without root.
TEST(AtomicFile, ANodeThatIsNotARegularFileIsNeverReplaced) {
  const std::string dir = scratch_dir("node");
  const std::string fifo = dir + "/out.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(error_of([&] { write_file_atomically(fifo, [](std::ostream& o) { o << "{}"; }); }),
            fifo + ": is a FIFO; caliber writes its outputs only as new or regular files");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(error_of([&] { require_writable_file(fifo, "--json"); }),
            "--json " + fifo + ": is a FIFO; outputs are written only as new or regular files");
  EXPECT_EQ(error_of([&] { require_writable_file("/dev/null", "--csv"); }),
            "--csv /dev/null: is a device node; outputs are written only as new or regular files");
  const std::string link = dir + "/link.json";
  fs::create_symlink(dir + "/target.json", link);
  EXPECT_EQ(error_of([&] { write_file_atomically(link, [](std::ostream& o) { o << "{}"; }); }),
            link + ": is a symbolic link; caliber writes its outputs only as new or regular files");
  EXPECT_FALSE(fs::exists(dir + "/target.json"));
}

// A nearly full disk left report with two of its three files.
TEST(AtomicFile, AGroupIsWrittenAllOrNothing) {
  const std::string dir = scratch_dir("group");
  { std::ofstream(dir + "/a.md") << "old a"; }
  // The second file's temporary cannot be created (its directory is missing): neither is written.
  const std::string why = error_of([&] {
    write_files_atomically({{dir + "/a.md", "new a"}, {dir + "/missing/b.md", "new b"}});
  });
  EXPECT_EQ(why.substr(0, why.find(": cannot create")), dir + "/missing/b.md.tmp." + std::to_string(::getpid()));
  EXPECT_EQ(slurp(dir + "/a.md"), "old a");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no temporary left
  write_files_atomically({{dir + "/a.md", "new a"}, {dir + "/b.md", "new b"}});
  EXPECT_EQ(slurp(dir + "/a.md"), "new a");
  EXPECT_EQ(slurp(dir + "/b.md"), "new b");
  EXPECT_EQ(error_of([&] { write_files_atomically({{dir + "/a.md", "1"}, {dir + "/./a.md", "2"}}); }),
            dir + "/./a.md: named twice among the files of one output");
}

// The file that says which cell a run is measuring, rewritten at each cell's start: whole every
// time, no temporary left beside it, and never onto a link.
TEST(AtomicFile, AnUnsyncedReplacementIsWholeAndLeavesNoTemporary) {
  const std::string dir = scratch_dir("unsynced");
  const std::string path = dir + "/cell_in_flight.json";
  replace_file_unsynced(path, "first, longer than the second\n");
  EXPECT_EQ(slurp(path), "first, longer than the second\n");
  replace_file_unsynced(path, "second\n");
  EXPECT_EQ(slurp(path), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  const std::string link = dir + "/link.json";
  fs::create_symlink(dir + "/target.json", link);
  EXPECT_EQ(error_of([&] { replace_file_unsynced(link, "{}"); }),
            link + ": is a symbolic link; caliber writes its outputs only as new or regular files");
  EXPECT_FALSE(fs::exists(dir + "/target.json"));
}

// Outputs of any size are written as streams: nothing is at the path before commit(), the whole
// content after; abandoned, they leave the old file and no temporary.
TEST(AtomicFile, StreamedFilesTakeTheirPlaceOnlyAtCommit) {
  const std::string dir = scratch_dir("streamed");
  { std::ofstream(dir + "/rows.jsonl") << "old\n"; }
  std::string expected;
  for (int i = 0; i < 100000; ++i) expected += "row " + std::to_string(i) + "\n";  // 1.2 MB: many buffers
  {
    AtomicFiles files;
    files.open(dir + "/rows.jsonl") << expected;
    files.open(dir + "/summary.json") << "{}\n";
    EXPECT_EQ(slurp(dir + "/rows.jsonl"), "old\n");
    EXPECT_FALSE(fs::exists(dir + "/summary.json"));
  }  // abandoned
  EXPECT_EQ(slurp(dir + "/rows.jsonl"), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  AtomicFiles files;
  files.open(dir + "/rows.jsonl") << expected;
  files.open(dir + "/summary.json") << "{}\n";
  EXPECT_EQ(error_of([&] { files.open(dir + "/./summary.json"); }),
            dir + "/./summary.json: named twice among the files of one output");
  files.commit();
  EXPECT_EQ(slurp(dir + "/rows.jsonl"), expected);
  EXPECT_EQ(slurp(dir + "/summary.json"), "{}\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

// A write that fails halfway (here: past the file size limit, as on a full disk) fails the
// commit with the file and the reason, and nothing takes its place.
TEST(AtomicFile, AStreamedWriteThatFailsFailsTheCommit) {
  const std::string dir = scratch_dir("efbig");
  { std::ofstream(dir + "/big.csv") << "old\n"; }
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 1 << 20;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string why = error_of([&] {
    AtomicFiles files;
    std::ostream& out = files.open(dir + "/big.csv");
    for (int i = 0; i < 300000; ++i) out << "a line of the file\n";  // 5.7 MB
    files.commit();
  });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_EQ(why, dir + "/big.csv.tmp." + std::to_string(::getpid()) + ": write failed: File too large");
  EXPECT_EQ(slurp(dir + "/big.csv"), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(AtomicFile, AWritableDirectoryIsCheckedBeforeAnythingIsCreated) {
  const std::string dir = scratch_dir("dir");
  { std::ofstream(dir + "/file") << "x"; }
  EXPECT_EQ(error_of([&] { require_writable_directory(dir + "/file", "--out"); }),
            "--out " + dir + "/file: exists and is not a directory");
  EXPECT_EQ(error_of([&] { require_writable_directory(dir + "/file/report", "--out"); }),
            "--out " + dir + "/file/report: " + dir + "/file is not a directory");
  EXPECT_EQ(error_of([&] { require_writable_directory(dir + "/new/deeper", "--out"); }), "(written)");
  EXPECT_FALSE(fs::exists(dir + "/new"));
}

}  // namespace
}  // namespace caliber
