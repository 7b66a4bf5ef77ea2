// YAML documents: aliases that expand without bound, too many nodes, deep nesting, a second
// document and custom tags are refused with a line.
#include "core/yaml_fields.h"

#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "support/alias_bomb.h"

namespace caliber {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_yaml_document(text, "m.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(parsed)";
}

// validate converted an alias bomb to JSON for 50 s and 7.4 GB, then aborted with std::bad_alloc.
TEST(YamlFields, AliasesThatExpandBeyondTheBoundAreRefused) {
  const std::string why = error_of(testing_support::yaml_alias_bomb());
  EXPECT_EQ(why.substr(0, 7), "m.yaml:") << why;
  EXPECT_NE(why.find(": its aliases expand to more than 100000 nodes; caliber refuses it"), std::string::npos) << why;
  // A few aliases (a shared provider block) are fine.
  EXPECT_EQ(error_of("base: &b {enabled: true}\none: *b\ntwo: *b\n"), "(parsed)");
}

TEST(YamlFields, AFileOfManyNodesWithoutAliasesIsToldSo) {
  std::string many = "probes:\n";
  for (int i = 0; i < 60'000; ++i) many += "  - {m: 1}\n";  // three nodes each
  EXPECT_EQ(error_of(many).substr(0, 7), "m.yaml:");
  EXPECT_NE(error_of(many).find(": holds more than 100000 nodes, the most caliber reads from one YAML file"),
            std::string::npos)
      << error_of(many);
}

TEST(YamlFields, ASecondDocumentAndCustomTagsAreRefused) {
  EXPECT_EQ(error_of("a: 1\n---\nb: 2\n"), "m.yaml:3: holds more than one YAML document ('---'); caliber reads one");
  EXPECT_EQ(error_of("---\na: 1\n---\n"), "(parsed)");  // markers around one document
  EXPECT_EQ(error_of("a: !custom 1\n"), "m.yaml:1: custom tag '!custom': caliber's YAML files hold plain values only");
  EXPECT_EQ(error_of("a: !!python/object:os.system 1\n"),
            "m.yaml:1: custom tag 'tag:yaml.org,2002:python/object:os.system': caliber's YAML files hold plain values "
            "only");
  EXPECT_EQ(error_of("a: !!str 1\nb: '2'\n"), "(parsed)");  // YAML's own tags and quotes
}

TEST(YamlFields, NestingIsBounded) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(error_of(deep), "m.yaml:1: nested deeper than 64 levels");
  // Deep enough for yaml-cpp's own guard (which says "bad file").
  std::string block = "a:\n";
  for (int i = 1; i <= 3000; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "-\n";
  EXPECT_EQ(error_of(block).substr(0, 7), "m.yaml:");
  EXPECT_NE(error_of(block).find(": nested deeper than 64 levels"), std::string::npos) << error_of(block);
}

TEST(YamlFields, NumbersAreFiniteOrText) {
  std::map<std::string, long> lines;
  const nlohmann::json j = yaml_to_json(parse_yaml_document("a: 1e400\nb: nan\nc: 2.5\nd: 7\n", "m.yaml"), lines);
  EXPECT_EQ(j["a"], "1e400");
  EXPECT_EQ(j["b"], "nan");
  EXPECT_EQ(j["c"], 2.5);
  EXPECT_EQ(j["d"], 7);
}

}  // namespace
}  // namespace caliber
