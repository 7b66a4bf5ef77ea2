// The worker's channel token on literal lines (runner/worker_token.h).
#include "runner/worker_token.h"

#include <gtest/gtest.h>

#include <string>

namespace caliber::runner {
namespace {

TEST(WorkerToken, AnEventIsTakenOnlyWithTheWorkersTokenWhichIsRemoved) {
  std::string why;
  const auto ok = authentic_event(R"({"event":"ready","token":"t0k"})", "t0k", &why);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->dump(), R"({"event":"ready"})");
  EXPECT_FALSE(authentic_event(R"({"event":"fatal","exit_code":0})", "t0k", &why).has_value());
  EXPECT_EQ(why, "an event without the worker's token ('{\"event\":\"fatal\",\"exit_code\":0}'): the measured code "
                 "wrote to the worker's channel");
  EXPECT_FALSE(authentic_event(R"({"event":"ready","token":"other"})", "t0k", &why).has_value());
  EXPECT_FALSE(authentic_event(R"({"event":"ready","token":7})", "t0k", &why).has_value());
  EXPECT_FALSE(authentic_event("garbage", "t0k", &why).has_value());
  EXPECT_EQ(why.find("a line on the worker's events channel that is not an event ('garbage')"), 0u) << why;
  EXPECT_FALSE(authentic_event(std::string(200, 'x'), "t0k", &why).has_value());
  EXPECT_NE(why.find(std::string(80, 'x') + "..."), std::string::npos);  // quoted, not whole
}

TEST(WorkerToken, TheFirstLineCarriesADrawnTokenAndNothingElse) {
  const std::string t = make_worker_token();
  EXPECT_EQ(t.size(), 32u);
  EXPECT_NE(t, make_worker_token());
  EXPECT_EQ(token_from_line(token_line(t)), t);
  EXPECT_EQ(token_from_line(R"({"token":""})"), std::nullopt);
  EXPECT_EQ(token_from_line(R"({"token":"a","x":1})"), std::nullopt);
  EXPECT_EQ(token_from_line(R"({"shapes":[]})"), std::nullopt);
  EXPECT_EQ(token_from_line("not json"), std::nullopt);
}

TEST(WorkerToken, APresetTokenIsTakenOnce) {
  EXPECT_EQ(take_preset_worker_token(), std::nullopt);
  preset_worker_token("abc");
  EXPECT_EQ(take_preset_worker_token(), "abc");
  EXPECT_EQ(take_preset_worker_token(), std::nullopt);
}

}  // namespace
}  // namespace caliber::runner
