// The unit tests' main: GoogleTest's, plus one flag for ctest. With --skipped_exit_code=N, a run in
// which no test failed but one was skipped exits N, which ctest reports as skipped
// (SKIP_RETURN_CODE, cmake/gtest_suites_add.cmake): a suite with a skipped test never reads as
// passed. Without the flag the exit status is GoogleTest's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);  // leaves the flags it does not know in argv
  int skipped_exit_code = 0;
  constexpr std::string_view flag = "--skipped_exit_code=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, flag.size()) == flag) skipped_exit_code = std::atoi(argv[i] + flag.size());
  }
  const int failed = RUN_ALL_TESTS();
  if (failed != 0 || skipped_exit_code == 0) return failed;
  return testing::UnitTest::GetInstance()->skipped_test_count() > 0 ? skipped_exit_code : 0;
}
