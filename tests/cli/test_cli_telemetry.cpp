// caliber telemetry, run as a user would: without NVML (a clear one-line message, exit 3) and
// with a scripted stand-in for NVML (tests/fake_nvml): the CSV columns, the values, and a quiet
// exit 0 when the reader goes away.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_command.h"

namespace caliber {
namespace {

using testing_support::run_command;

const std::string kExe = CALIBER_EXE;
const std::string kWithFakeNvml = std::string("CALIBER_NVML_LIBRARY=") + CALIBER_FAKE_NVML + " ";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

TEST(CliTelemetry, WithoutNvmlSaysSoOnOneLineAndExitsThree) {
  const auto r = run_command("CALIBER_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 " + kExe + " telemetry --count 3");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");  // no partial CSV
  EXPECT_EQ(r.err.rfind("caliber: telemetry: unavailable (NVML not loaded: /nonexistent/libnvidia-ml.so.1", 0), 0u)
      << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

TEST(CliTelemetry, PrintsTheDocumentedColumnsAndOneRowPerReading) {
  const auto r = run_command(kWithFakeNvml + kExe + " telemetry --count 4 --interval-ms 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 5u) << r.out;
  EXPECT_EQ(rows[0], "timestamp_ms,index,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,util_pct,throttle_reasons");
  // Everything after the timestamp is the fake's script: reading 2 is power-capped.
  const std::vector<std::string> tails = {"0,1980,3201,41,402.500,97,none", "1,1980,3201,41,402.500,97,none",
                                          "2,1755,3201,41,402.500,97,sw_power_cap",
                                          "3,1980,3201,41,402.500,97,none"};
  double previous_ms = -1;
  for (std::size_t i = 0; i < tails.size(); ++i) {
    const std::string& row = rows[i + 1];
    const std::size_t comma = row.find(',');
    ASSERT_NE(comma, std::string::npos) << row;
    EXPECT_EQ(row.substr(comma + 1), tails[i]);
    const double ms = std::stod(row.substr(0, comma));
    EXPECT_GE(ms, previous_ms);  // time moves forward
    previous_ms = ms;
  }
  EXPECT_EQ(rows[1].substr(0, rows[1].find(',')), "0.000");  // times count from the first reading
  EXPECT_EQ(r.err, "");
}

TEST(CliTelemetry, ExitsQuietlyWithZeroWhenTheReaderGoesAway) {
  // --count 0 reads forever; head takes two lines and leaves. PIPESTATUS[0] is caliber's status.
  const auto r = run_command("bash -c '" + kWithFakeNvml + kExe +
                             " telemetry --count 0 --interval-ms 1 | head -n 2 >/dev/null; echo "
                             "\"status=${PIPESTATUS[0]}\"'");
  EXPECT_EQ(r.out, "status=0\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliTelemetry, RejectsBadOptions) {
  for (const std::string& args : {" telemetry --interval-ms 0", " telemetry --count -1", " telemetry --device -2"}) {
    const auto r = run_command(kWithFakeNvml + kExe + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
}

}  // namespace
}  // namespace caliber
