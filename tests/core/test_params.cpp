// Params (include/caliber/params.h): a result's named scalars without a JSON library, and their
// JSON projection (caliber/result_json.h) that keeps each value's kind.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "caliber/errors.h"
#include "caliber/params.h"
#include "caliber/result_json.h"

namespace caliber {
namespace {

TEST(Params, KeepKindsAndSortKeys) {
  const Params p = {{"n", 4096}, {"eps", 1e-06}, {"dtype", "bf16"}, {"fused", true}};
  EXPECT_EQ(p.dump(), R"({"dtype":"bf16","eps":1e-06,"fused":true,"n":4096})");
  EXPECT_EQ(p.label(), "dtype=bf16 eps=1e-06 fused=true n=4096");
  EXPECT_TRUE(p.at("n").is_integer());
  EXPECT_EQ(p.at("n").number(), 4096.0);  // integers read as numbers too
  EXPECT_THROW(p.at("dtype").integer(), std::logic_error);
  EXPECT_THROW(p.at("m"), std::out_of_range);
  EXPECT_EQ(p.find("m"), nullptr);
  EXPECT_THROW(ParamValue(std::uint64_t{1} << 63), std::out_of_range);
}

TEST(Params, JsonRoundTripKeepsIntegersIntegers) {
  const Params p = {{"size_bytes", std::uint64_t{1} << 40}, {"ratio", 0.1}, {"name", "copy"}};
  const nlohmann::json j = to_json(p);
  EXPECT_TRUE(j.at("size_bytes").is_number_integer());
  EXPECT_EQ(j.dump(), p.dump());
  EXPECT_EQ(params_from_json(j, "f", 1, "params"), p);
}

TEST(Params, FromJsonRefusesWhatIsNotAScalar) {
  for (const char* text : {R"({"shape": [1, 2]})", R"({"x": null})", R"({"o": {"a": 1}})",
                           R"({"big": 18446744073709551615})", R"([1])"}) {
    EXPECT_THROW(params_from_json(nlohmann::json::parse(text), "f", 1, "params"), InputError) << text;
  }
}

}  // namespace
}  // namespace caliber
