// call_in_child: whatever the function does to its process, the caller gets a value or how the
// child ended, within the limit.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/forked_call.h"

namespace caliber {
namespace {

TEST(ForkedCall, AFunctionThatReturnsGivesItsValue) {
  const ForkedCall c = call_in_child([] { return std::string("Ploads, exports x"); }, 10);
  EXPECT_TRUE(c.answered);
  EXPECT_EQ(c.value, "Ploads, exports x");
  EXPECT_EQ(c.failure, "");
  const ForkedCall empty = call_in_child([] { return std::string(); }, 10);
  EXPECT_TRUE(empty.answered);
  EXPECT_EQ(empty.value, "");
}

TEST(ForkedCall, AnExitACrashAndAThrowAreFailuresThatSayHowTheChildEnded) {
  const ForkedCall exits = call_in_child([]() -> std::string { std::exit(0); }, 10);
  EXPECT_FALSE(exits.answered);
  // Prefix only: under LeakSanitizer an exit() may report, and change the code.
  EXPECT_EQ(exits.failure.rfind("ended before it returned (exit code ", 0), 0u) << exits.failure;
  const ForkedCall crashes = call_in_child([]() -> std::string {
    ::raise(SIGSEGV);
    return "unreached";
  }, 10);
  EXPECT_FALSE(crashes.answered);
  // Signal 11, or 6 where a sanitizer's SEGV handler reports and aborts.
  EXPECT_EQ(crashes.failure.rfind("ended before it returned (signal ", 0), 0u) << crashes.failure;
  const ForkedCall throws = call_in_child([]() -> std::string { throw std::runtime_error("no licence"); }, 10);
  EXPECT_FALSE(throws.answered);
  EXPECT_EQ(throws.failure, "threw: no licence");
}

TEST(ForkedCall, AHangIsEndedAtTheLimitWithItsChildren) {
  const auto t0 = std::chrono::steady_clock::now();
  const ForkedCall hangs = call_in_child([]() -> std::string {
    if (::fork() == 0) ::sleep(3600);  // a grandchild holding the answer's pipe
    ::sleep(3600);
    return "unreached";
  }, 0.3);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(hangs.answered);
  EXPECT_EQ(hangs.failure, "did not return within 0.3 s (its process group was killed)");
  EXPECT_LT(took_s, 5.0);
}

TEST(ForkedCall, AChildThatExitsLeavingAGrandchildWithThePipeAnswersAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const ForkedCall c = call_in_child([]() -> std::string {
    if (::fork() == 0) {
      ::sleep(3600);
      ::_exit(0);
    }
    return "done";
  }, 30);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(c.answered) << c.failure;
  EXPECT_EQ(c.value, "done");
  EXPECT_LT(took_s, 5.0);
}

TEST(ForkedCall, TheChildHoldsNoDescriptorOfTheCallerButItsStandardOnes) {
  const int held = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(held, 3);
  const ForkedCall c = call_in_child([held] {
    return std::string(::fcntl(held, F_GETFD) < 0 ? "closed" : "open") + (::fcntl(3, F_GETFD) < 0 ? " 3-closed" : " 3-open");
  }, 10);
  ::close(held);
  EXPECT_TRUE(c.answered) << c.failure;
  EXPECT_EQ(c.value, "closed 3-closed");
}

}  // namespace
}  // namespace caliber
