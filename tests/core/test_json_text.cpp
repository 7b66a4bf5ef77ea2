// The strict JSON parser: every refusal names file, line and (inside a field) the field.
#include "core/json_text.h"

#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "core/jsonl.h"

namespace caliber {
namespace {

std::string error_of(const std::string& text, long first_line = 1) {
  try {
    parse_json_text(text, "f.json", first_line);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(parsed)";
}

// "eps": 1e400 gave exit 1 with "[json.exception.out_of_range.406] number overflow parsing
// '1e400'" and no file or line.
TEST(JsonText, ANumberADoubleCannotHoldNamesItsLineAndField) {
  EXPECT_EQ(error_of("{\"args\": {\"m\": 4,\n \"eps\": 1e400}}"),
            "f.json:2: field 'args.eps': number overflow parsing '1e400'");
  EXPECT_EQ(error_of("[1, 2,\n-1e999]"), "f.json:2: field '[2]': number overflow parsing '-1e999'");
  EXPECT_EQ(error_of("{\"eps\": 1e400}", 17), "f.json:17: field 'eps': number overflow parsing '1e400'");
}

// 20,000 nested arrays cost 1.4 GB in compare; 100,000 ended in bad_alloc.
TEST(JsonText, NestingIsBounded) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(error_of(deep), "f.json:1: field '" + [] {
    std::string path;
    for (int i = 0; i < kMaxJsonDepth; ++i) path += "[0]";
    return path;
  }() + "': nested deeper than 64 levels");
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(error_of(ok), "(parsed)");
}

// "stage":"bogus","stage":"synthetic" passed validate and run: nlohmann keeps the last one.
TEST(JsonText, ADuplicateKeyIsRefused) {
  EXPECT_EQ(error_of("{\"stage\": \"bogus\",\n \"stage\": \"synthetic\"}"), "f.json:2: field 'stage': duplicate key");
  EXPECT_EQ(error_of("{\"a\": 1,\n \"b\": {\"x\": 1,\n \"x\": 2}}\n"), "f.json:3: field 'b.x': duplicate key");
  EXPECT_EQ(error_of("{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}"), "(parsed)");  // one key per object
}

TEST(JsonText, NulInAStringIsRefused) {
  EXPECT_EQ(error_of("{\"model\": \"a\\u0000b\"}"), "f.json:1: field 'model': a NUL character (\\u0000) in a string");
}

TEST(JsonText, SyntaxErrorsKeepTheirMessage) {
  EXPECT_EQ(error_of("{\"a\": 1,\n \"b\": }"),
            "f.json:2: malformed JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal");
  EXPECT_EQ(error_of("{} x"),
            "f.json:1: malformed JSON: syntax error while parsing value - invalid literal; last read: '{} x'; expected "
            "end of input");
}

TEST(JsonText, JsonLinesNameTheFileLine) {
  std::string msg;
  try {
    for_each_jsonl_row("{}\n\n{\"eps\": 1e400}\n", "r.jsonl", [](const nlohmann::json&, long) {});
  } catch (const InputError& e) {
    msg = e.what();
  }
  EXPECT_EQ(msg, "r.jsonl:3: field 'eps': number overflow parsing '1e400'");
  std::vector<std::string> errors;
  long rows = 0;
  for_each_jsonl_row(
      "{}\n{\n{}\n{\"a\": 1", "r.jsonl", [&](const nlohmann::json&, long) { ++rows; },
      [&](const InputError& e) { errors.push_back(e.what()); });
  EXPECT_EQ(rows, 2);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].substr(0, 30), "r.jsonl:2: malformed JSON: syn");
  EXPECT_EQ(errors[1].substr(0, 48), "r.jsonl:4: malformed JSON (truncated last line?)");
}

}  // namespace
}  // namespace caliber
