// Messages stay one line of plain text whatever the input put into them.
#include "core/one_line.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

TEST(OneLine, ControlCharactersAndInvalidUtf8AreEscaped) {
  EXPECT_EQ(one_line("unknown op 'rms\nnorm'"), "unknown op 'rms\\nnorm'");
  EXPECT_EQ(one_line("a\r\tb"), "a\\r\\tb");
  EXPECT_EQ(one_line("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(one_line(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(one_line("bad \xff byte"), "bad \\xff byte");
  EXPECT_EQ(one_line("c1 \xc2\x9b control"), "c1 \\u009b control");
  EXPECT_EQ(one_line("caf\xc3\xa9 ok"), "caf\xc3\xa9 ok");
  EXPECT_EQ(one_line("\x7f"), "\\x7f");
}

TEST(QuotedText, AQuotedValueIsBounded) {
  EXPECT_EQ(quoted_text("short"), "short");
  EXPECT_EQ(quoted_text(std::string(5'000'000, 'x'), 4), "xxxx... (5000000 bytes)");
  EXPECT_EQ(quoted_text("ab\ncd", 3), "ab\\n... (5 bytes)");
  // never cut inside a UTF-8 character: "é" is 2 bytes
  EXPECT_EQ(quoted_text("a\xc3\xa9" "b", 2), "a... (4 bytes)");
}

}  // namespace
}  // namespace caliber
