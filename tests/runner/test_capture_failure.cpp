// The class of a failed kernel-only measurement from the facts the runner has after it
// (runner/capture_failure.h), and the denial a poisoned context leaves for the rest of the run.
#include <gtest/gtest.h>

#include <filesystem>

#include "caliber/errors.h"
#include "runner/capture_failure.h"
#include "support/cli_run.h"

namespace caliber::runner {
namespace {

TEST(CaptureFailure, ClassesFollowTheFaultThePhaseAndTheDevicesHealth) {
  struct Case {
    bool during_capture;
    DeviceFault fault;
    bool usable;
    CaptureFailureClass want;
  };
  using F = DeviceFault;
  using C = CaptureFailureClass;
  const Case cases[] = {
      // Capture refused the call (a synchronization, an unjoined fork): the eager number stands.
      {true, F::capture_rejected, true, C::recoverable},
      {true, F::unspecified, true, C::recoverable},
      {false, F::capture_rejected, true, C::recoverable},
      // A refusal after which the device does not work: the attempt broke it.
      {true, F::capture_rejected, false, C::poisoned_context},
      {true, F::unspecified, false, C::poisoned_context},
      {false, F::unspecified, false, C::poisoned_context},
      // The device faulted executing work: no number, whatever else holds.
      {false, F::kernel_fault, false, C::fatal_device_fault},
      {false, F::kernel_fault, true, C::fatal_device_fault},
      {true, F::kernel_fault, false, C::fatal_device_fault},
      // The graph was built and its replays failed on a usable device: what was timed did not run.
      {false, F::unspecified, true, C::fatal_device_fault},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(classify_capture_failure({c.during_capture, c.fault, c.usable}), c.want)
        << "during_capture=" << c.during_capture << " fault=" << static_cast<int>(c.fault) << " usable=" << c.usable;
  }
}

TEST(CaptureFailure, OnlyEagerlyTimedClassesKeepANumber) {
  EXPECT_TRUE(capture_failure_keeps_eager_number(CaptureFailureClass::recoverable));
  EXPECT_TRUE(capture_failure_keeps_eager_number(CaptureFailureClass::capture_denied));
  EXPECT_FALSE(capture_failure_keeps_eager_number(CaptureFailureClass::fatal_device_fault));
  EXPECT_FALSE(capture_failure_keeps_eager_number(CaptureFailureClass::poisoned_context));
}

TEST(CaptureFailure, APoisonedContextDeniesCaptureToItsProviderAndNothingElseDoes) {
  BenchmarkResultRow row;
  row.provider = "triton_fused";
  row.shape_id = "sha1:72b18e806ceb3d6b";
  EXPECT_FALSE(capture_denial_from(row).has_value());
  for (CaptureFailureClass c : {CaptureFailureClass::recoverable, CaptureFailureClass::fatal_device_fault,
                                CaptureFailureClass::capture_denied}) {
    row.capture_failure = CaptureFailure{c, "x"};
    EXPECT_FALSE(capture_denial_from(row).has_value()) << to_string(c);
  }
  row.capture_failure = CaptureFailure{CaptureFailureClass::poisoned_context, "kernel-only event/graph/warm: boom"};
  EXPECT_EQ(capture_denial_from(row),
            "capture denied: graph capture left the device unusable for this provider at shape sha1:72b18e806ceb3d6b "
            "(kernel-only event/graph/warm: boom)");
}

// The file a campaign keeps per op: merged atomically, the first reason of a provider stays, a
// malformed line is an input error naming the file and the line.
TEST(CaptureFailure, DenialsAreMergedIntoOneFileAndReadBackStrictly) {
  const std::string dir = testing_support::fresh_dir("capture_denials");
  const std::string file = dir + "/capture_denied.rmsnorm.tsv";
  merge_capture_denials(file, {{"triton_fused", "capture denied: at shape A"}});
  merge_capture_denials(file, {{"triton_fused", "capture denied: at shape B"}, {"flaky", "two\nlines\tand a tab"}});
  const auto back = read_capture_denials(file);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.at("triton_fused"), "capture denied: at shape A");
  EXPECT_EQ(back.at("flaky"), "two\\nlines\\tand a tab");  // one line, the tab escaped
  EXPECT_EQ(testing_support::slurp(file),
            "# providers denied graph capture (caliber run --capture-denied): provider<TAB>why\n"
            "flaky\ttwo\\nlines\\tand a tab\n"
            "triton_fused\tcapture denied: at shape A\n");
  testing_support::write_text(file, "# c\nok\twhy\nno-tab-here\n");
  try {
    read_capture_denials(file);
    ADD_FAILURE() << "accepted a line without a tab";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "denial");
  }
}

}  // namespace
}  // namespace caliber::runner
