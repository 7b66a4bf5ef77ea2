// The one reader of input files: regular files within a size limit only, never blocking, and
// text that is UTF-8 without NUL bytes.
#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

std::string scratch(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/caliber_input_file_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::filesystem::remove_all(path);
  return path;
}

std::string error_of(const std::string& file) {
  try {
    read_text_file(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read)";
}

// A FIFO as a ledger blocked forever (nobody writes it).
TEST(InputFile, AFifoIsRefusedWithoutBlocking) {
  const std::string fifo = scratch("ledger.jsonl");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(error_of(fifo), fifo + ": is a FIFO: only regular files are read");
  EXPECT_EQ(input_file_problem(fifo), "is a FIFO: only regular files are read");
}

// /dev/zero was read until memory ran out.
TEST(InputFile, ADeviceIsRefused) {
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: is a character device: only regular files are read");
}

TEST(InputFile, ADirectoryIsRefused) {
  const std::string dir = scratch("shape_ledger.jsonl");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(error_of(dir), dir + ": is a directory");
  EXPECT_EQ(error_of(dir + "/nothing"), dir + "/nothing: does not exist");
}

// A 2 GB sparse file took 32 s and 4.3 GB before it was refused.
TEST(InputFile, AFileBeyondTheLimitIsRefusedBeforeItIsRead) {
  const std::string big = scratch("big.jsonl");
  { std::ofstream(big) << ""; }
  std::filesystem::resize_file(big, 2ull << 30);
  EXPECT_EQ(error_of(big), big + ": is 2147483648 bytes, more than the 256 MiB caliber reads from one input file");
  std::filesystem::remove(big);
}

TEST(InputFile, TextMustBeUtf8WithoutNul) {
  const std::string f = scratch("t.jsonl");
  { std::ofstream(f, std::ios::binary) << std::string("{}\n{\"a\": \"x\0y\"}\n", 16); }
  EXPECT_EQ(error_of(f), f + ":2: NUL byte: not a text file");
  const std::string latin1 = "{}\n{}\n{\"model\": \"\xff\"}\n";
  { std::ofstream(f, std::ios::binary) << latin1; }
  EXPECT_EQ(error_of(f), f + ":3: byte " + std::to_string(latin1.find('\xff')) +
                             " is not valid UTF-8 (caliber reads UTF-8 text)");
  { std::ofstream(f, std::ios::binary) << "{\"model\": \"caf\xc3\xa9 \xf0\x9f\x99\x82\"}\n"; }
  EXPECT_EQ(error_of(f), "(read)");
}

TEST(InputFile, AByteOrderMarkWhereALineStartsIsRefused) {
  const std::string f = scratch("bom.jsonl");
  { std::ofstream(f, std::ios::binary) << "\xEF\xBB\xBF{}\n"; }
  EXPECT_EQ(error_of(f), f + ":1: a UTF-8 byte order mark (EF BB BF) starts this line; save the file without it");
  { std::ofstream(f, std::ios::binary) << "{}\n\xEF\xBB\xBF{}\n"; }  // two files joined
  EXPECT_EQ(error_of(f), f + ":2: a UTF-8 byte order mark (EF BB BF) starts this line; save the file without it");
  { std::ofstream(f, std::ios::binary) << "{\"note\": \"a\xEF\xBB\xBF" "b\"}\n"; }  // inside a value: text
  EXPECT_EQ(error_of(f), "(read)");
}

// A results file past the 256 MiB a text is read whole in: read a line at a time, memory holding
// one line; a line past 64 MiB is refused with its number.
TEST(InputFile, LinesAreReadFromAFileLargerThanAnyTextReadWhole) {
  const std::string f = scratch("large.jsonl");
  const std::string line(60u << 20, 'a');
  {
    std::ofstream out(f, std::ios::binary);
    for (int i = 0; i < 5; ++i) out << line << '\n';
    out << "tail";  // a last line without its newline
  }
  ASSERT_GT(std::filesystem::file_size(f), kMaxTextInputBytes);
  std::vector<std::pair<long, bool>> seen;
  std::size_t bytes = 0;
  for_each_text_line(f, [&](std::string_view l, long number, bool terminated) {
    seen.emplace_back(number, terminated);
    bytes += l.size();
  });
  EXPECT_EQ(seen, (std::vector<std::pair<long, bool>>{{1, true}, {2, true}, {3, true}, {4, true}, {5, true}, {6, false}}));
  EXPECT_EQ(bytes, 5 * line.size() + 4);
  {
    std::ofstream out(f, std::ios::binary);
    out << "{}\n" << std::string((64u << 20) + 1, 'a') << '\n';
  }
  try {
    for_each_text_line(f, [](std::string_view, long, bool) {});
    ADD_FAILURE() << "a 64 MiB line was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), f + ":2: a line longer than 64 MiB: caliber reads at most that much of one line");
  }
  { std::ofstream(f, std::ios::binary) << "{}\n\xEF\xBB\xBF{}\n"; }
  try {
    for_each_text_line(f, [](std::string_view, long, bool) {});
    ADD_FAILURE() << "a byte order mark was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), f + ":2: a UTF-8 byte order mark (EF BB BF) starts this line; save the file without it");
  }
  std::filesystem::remove(f);
}

TEST(InputFile, InvalidUtf8SequencesAreFound) {
  EXPECT_EQ(first_invalid_text_byte("abc"), std::nullopt);
  EXPECT_EQ(first_invalid_text_byte("\xc3\xa9"), std::nullopt);
  EXPECT_EQ(first_invalid_text_byte("a\xc3"), 1u);              // truncated
  EXPECT_EQ(first_invalid_text_byte("\xc0\xaf"), 0u);           // overlong '/'
  EXPECT_EQ(first_invalid_text_byte("\xed\xa0\x80"), 0u);       // a UTF-16 surrogate
  EXPECT_EQ(first_invalid_text_byte("\xf4\x90\x80\x80"), 0u);   // beyond U+10FFFF
  EXPECT_EQ(first_invalid_text_byte(std::string_view("a\0", 2)), 1u);
}

}  // namespace
}  // namespace caliber
