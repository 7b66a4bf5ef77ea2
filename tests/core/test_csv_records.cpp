#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "io/result_csv.h"
#include "core/csv_records.h"

namespace caliber {
namespace {

TEST(CsvRecords, SplitsFieldsAndKeepsTheLineOfEachRecord) {
  const auto recs = parse_csv_records("a,b,c\n1,,3\n\n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\nlast,1,2\r\n", "f.csv");
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[0].line, 1);
  EXPECT_EQ(recs[0].fields, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(recs[1].fields, (std::vector<std::string>{"1", "", "3"}));
  EXPECT_EQ(recs[2].line, 4);
  EXPECT_EQ(recs[2].fields, (std::vector<std::string>{"x,y", "say \"hi\"", "two\nlines"}));
  EXPECT_EQ(recs[3].line, 6);
  EXPECT_EQ(recs[3].fields, (std::vector<std::string>{"last", "1", "2"}));
}

TEST(CsvRecords, ReadsBackWhatCsvEscapeWrites) {
  const std::vector<std::string> fields = {"plain", "with,comma", "with \"quote\"", "new\nline", ""};
  std::string line;
  for (const auto& f : fields) line += (line.empty() ? "" : ",") + csv_escape(f);
  // An empty last field is written as nothing after the comma.
  const auto recs = parse_csv_records(line + "\n", "f.csv");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].fields, fields);
}

TEST(CsvRecords, RefusesAnUnterminatedQuoteWithTheRecordsLine) {
  try {
    parse_csv_records("a,b\n1,\"open\n", "f.csv");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("unterminated quoted field"), std::string::npos);
  }
}

TEST(CsvRecords, RefusesAQuoteInsideAnUnquotedField) {
  EXPECT_THROW(parse_csv_records("a,b\"c\n", "f.csv"), InputError);
  EXPECT_THROW(parse_csv_records("\"a\"b,c\n", "f.csv"), InputError);
}

}  // namespace
}  // namespace caliber
