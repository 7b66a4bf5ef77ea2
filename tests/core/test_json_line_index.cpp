#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "core/json_line_index.h"

namespace caliber {
namespace {

const std::string kDoc =
    "{\n"                                   // 1
    "  \"schema_version\": 1,\n"            // 2
    "  \"architectures\": {\n"              // 3
    "    \"sm_90\": {\n"                    // 4
    "      \"rules\": [\n"                  // 5
    "        {\"name\": \"copy\",\n"        // 6
    "         \"relative_pct\": -5\n"       // 7
    "        },\n"                          // 8
    "        {\n"                           // 9
    "          \"name\": \"scale\"\n"       // 10
    "        }\n"                           // 11
    "      ]\n"                             // 12
    "    }\n"                               // 13
    "  },\n"                                // 14
    "  \"list\": [10,\n"                    // 15
    "    20]\n"                             // 16
    "}\n";

TEST(JsonLineIndex, NamesTheLineOfEachField) {
  const JsonLineIndex index(kDoc);
  EXPECT_EQ(index.line_of("schema_version"), 2);
  EXPECT_EQ(index.line_of("architectures"), 3);
  EXPECT_EQ(index.line_of("architectures.sm_90.rules"), 5);
  EXPECT_EQ(index.line_of("architectures.sm_90.rules[0]"), 6);
  EXPECT_EQ(index.line_of("architectures.sm_90.rules[0].relative_pct"), 7);
  EXPECT_EQ(index.line_of("architectures.sm_90.rules[1]"), 9);
  EXPECT_EQ(index.line_of("architectures.sm_90.rules[1].name"), 10);
  EXPECT_EQ(index.line_of("list[0]"), 15);  // a number followed by ',' (look-ahead) stays on 15
  EXPECT_EQ(index.line_of("list[1]"), 16);
}

TEST(JsonLineIndex, AMissingFieldGetsTheLineOfItsParent) {
  const JsonLineIndex index(kDoc);
  EXPECT_EQ(index.line_of("architectures.sm_90.rules[1].calibration"), 9);
  EXPECT_EQ(index.line_of("nothing.here"), 0);
}

TEST(JsonLineIndex, ToleratesMalformedText) {
  const JsonLineIndex index("{\"a\": 1,\n \"b\": [1, 2");
  EXPECT_EQ(index.line_of("b"), 2);
}

TEST(JsonLineIndex, WithJsonLinesAddsTheLineToAnInputErrorOfTheFile) {
  try {
    with_json_lines(kDoc, "t.json", []() -> int {
      throw InputError("t.json", 0, "architectures.sm_90.rules[0].relative_pct", "must be >= 0");
    });
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_STREQ(e.what(), "t.json:7: field 'architectures.sm_90.rules[0].relative_pct': must be >= 0");
  }
}

}  // namespace
}  // namespace caliber
