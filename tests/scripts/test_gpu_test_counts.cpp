// scripts/device/gpu_test_counts.sh on literal GoogleTest XML reports (the format gtest 1.12
// writes with --gtest_output=xml): the device run passes only when every GPU test ran and passed,
// never by skipping.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_run.h"
#include "support/run_command.h"

namespace caliber {
namespace {

using testing_support::CommandOutput;

const char* kHeader = R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="0" disabled="0" errors="0" time="0" timestamp="2026-12-01T21:15:46.549" name="AllTests">
  <testsuite name="Cuda" tests="3" failures="0" disabled="0" skipped="0" errors="0" time="0" timestamp="2026-12-01T21:15:46.549">
)";
const char* kFooter = "  </testsuite>\n</testsuites>\n";

const char* kPassed = R"(    <testcase name="Passes" file="t.cpp" line="2" status="run" result="completed" time="0" timestamp="2026-12-01T21:15:46.549" classname="Cuda" />
)";
const char* kPassedSeeingADevice = R"(    <testcase name="RecordsTheCudaDevicesItSees" file="t.cpp" line="2" status="run" result="completed" time="0" timestamp="2026-12-01T21:15:46.549" classname="GpuTestBinary">
      <properties>
        <property name="cuda_devices" value="1"/>
      </properties>
    </testcase>
)";
const char* kSkipped = R"(    <testcase name="Skips" file="t.cpp" line="3" status="run" result="skipped" time="0" timestamp="2026-12-01T21:15:46.549" classname="Cuda">
      <skipped message="t.cpp:3&#x0A;CUPTI unavailable: another client"><![CDATA[t.cpp:3
CUPTI unavailable: another client]]></skipped>
    </testcase>
)";
const char* kFailed = R"(    <testcase name="Fails" file="t.cpp" line="4" status="run" result="completed" time="0" timestamp="2026-12-01T21:15:46.549" classname="Cuda">
      <failure message="t.cpp:4&#x0A;Expected equality of these values:&#x0A;  1&#x0A;  2&#x0A;boom &amp; &lt;x&gt;" type=""><![CDATA[t.cpp:4
Expected equality of these values:
  1
  2
boom & <x>]]></failure>
    </testcase>
)";
const char* kDisabled = R"(    <testcase name="DISABLED_Off" file="t.cpp" line="5" status="notrun" result="suppressed" time="0" timestamp="1970-01-01T00:00:00.000" classname="Cuda" />
)";

std::string report(const std::string& name, const std::string& cases) {
  const std::string path = testing_support::fresh_dir("gpu_test_counts_" + name) + "/" + name;
  testing_support::write_text(path, kHeader + cases + kFooter);
  return path;
}

CommandOutput counts(const std::string& args) {
  return testing_support::run_command("bash '" + testing_support::source_dir() +
                                      "/scripts/device/gpu_test_counts.sh' " + args);
}

bool has_line(const CommandOutput& r, const std::string& line) {
  return ("\n" + r.out).find("\n" + line + "\n") != std::string::npos;
}

TEST(GpuTestCounts, EveryTestPassedWithTheDevicePresent) {
  const CommandOutput r = counts("--device yes " + report("ok.xml", std::string(kPassed) + kPassed + kDisabled));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has_line(r, "GPU tests: 2 passed, 0 failed, 0 skipped, 1 disabled (3 in 1 report(s)); device "
                          "present: yes (--device yes)"))
      << r.out;
  EXPECT_TRUE(has_line(r, "DISABLED Cuda.DISABLED_Off")) << r.out;
  EXPECT_TRUE(has_line(r, "gpu tests OK")) << r.out;
}

TEST(GpuTestCounts, AFailedTestFailsTheRunAndIsNamed) {
  const CommandOutput r = counts("--device yes " + report("failed.xml", std::string(kPassed) + kFailed));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has_line(r, "FAILED Cuda.Fails: t.cpp:4 | Expected equality of these values: |   1 |   2 | boom & <x>"))
      << r.out;
  EXPECT_TRUE(has_line(r, "GPU tests: 1 passed, 1 failed, 0 skipped, 0 disabled (2 in 1 report(s)); device "
                          "present: yes (--device yes)"))
      << r.out;
  EXPECT_TRUE(has_line(r, "gpu tests FAILED: 1 GPU test(s) failed")) << r.out;
  // Without a device a failure fails the run all the same.
  EXPECT_EQ(counts("--device no " + report("failed.xml", kFailed)).exit_code, 1);
}

TEST(GpuTestCounts, ASkipFailsTheRunWhenADeviceIsPresentAndOnlyThen) {
  const std::string file = report("skipped.xml", std::string(kPassed) + kSkipped);
  const CommandOutput with = counts("--device yes " + file);
  EXPECT_EQ(with.exit_code, 1) << with.out;
  EXPECT_TRUE(has_line(with, "SKIPPED Cuda.Skips: t.cpp:3 | CUPTI unavailable: another client")) << with.out;
  EXPECT_TRUE(has_line(with, "GPU tests: 1 passed, 0 failed, 1 skipped, 0 disabled (2 in 1 report(s)); device "
                             "present: yes (--device yes)"))
      << with.out;
  EXPECT_TRUE(has_line(with, "gpu tests FAILED: 1 GPU test(s) skipped with a device present: a test that needs "
                             "the device did not run"))
      << with.out;
  const CommandOutput without = counts("--device no " + file);
  EXPECT_EQ(without.exit_code, 0) << without.out;
  EXPECT_TRUE(has_line(without, "GPU tests: 1 passed, 0 failed, 1 skipped, 0 disabled (2 in 1 report(s)); device "
                                "present: no (no device)"))
      << without.out;
}

TEST(GpuTestCounts, TheTestBinarySeeingADeviceIsADevicePresent) {
  // --device auto: the report's cuda_devices property says the binary saw a device, whatever
  // nvidia-smi says on the machine that reads the report.
  const CommandOutput r = counts(report("auto.xml", std::string(kPassedSeeingADevice) + kSkipped));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("device present: yes ("), std::string::npos) << r.out;
}

TEST(GpuTestCounts, AnAcceptedSkipCanBeLetThroughByName) {
  const CommandOutput r =
      counts("--device yes --allow-skip 'Cuda\\.Skips: .*another client' " + report("allowed.xml", kSkipped));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(has_line(r, "SKIPPED (allowed) Cuda.Skips: t.cpp:3 | CUPTI unavailable: another client")) << r.out;
  EXPECT_EQ(counts("--device yes --allow-skip 'Other\\.Test' " + report("other.xml", kSkipped)).exit_code, 1);
}

TEST(GpuTestCounts, AMissingTruncatedOrEmptyReportFailsTheRun) {
  const std::string dir = testing_support::fresh_dir("gpu_test_counts_missing");
  CommandOutput r = counts("--device no '" + dir + "/never_written.xml'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has_line(r, "gpu tests FAILED: report " + dir +
                              "/never_written.xml is missing or empty: the test binary did not finish (crash, "
                              "timeout or kill)"))
      << r.out;
  testing_support::write_text(dir + "/truncated.xml", std::string(kHeader) + kPassed);
  r = counts("--device no '" + dir + "/truncated.xml'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("is truncated (no </testsuites>)"), std::string::npos) << r.out;
  r = counts("--device no " + report("empty.xml", ""));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has_line(r, "gpu tests FAILED: no test case in the reports: nothing was run")) << r.out;
  // Two reports are counted together; one of them missing still fails the run.
  r = counts("--device no " + report("a.xml", kPassed) + " '" + dir + "/never_written.xml'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has_line(r, "GPU tests: 1 passed, 0 failed, 0 skipped, 0 disabled (1 in 2 report(s)); device "
                          "present: no (no device)"))
      << r.out;
}

TEST(GpuTestCounts, BadUsageIsRefused) {
  EXPECT_EQ(counts("--device maybe x.xml").exit_code, 2);
  EXPECT_EQ(counts("--device yes").exit_code, 2);
  EXPECT_EQ(counts("--verbose x.xml").exit_code, 2);
}

}  // namespace
}  // namespace caliber
