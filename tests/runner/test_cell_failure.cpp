#include "runner/cell_failure.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include "providers/provider.h"

namespace caliber::runner {
namespace {

const char* const kLost = "illegal address (the device is no longer usable: the next cells run in a fresh process)";

TEST(CellFailure, AnIntegrityRefusalFailsTheCellNamingItsCheck) {
  const Failure f = classify_failure(IntegrityError(std::string(integrity_check::work_on_stream), "no work on the stream"));
  EXPECT_EQ(f.kind, FailureKind::integrity);
  EXPECT_EQ(f.status, BenchmarkStatus::failed);
  EXPECT_EQ(f.integrity_check, integrity_check::work_on_stream);
  EXPECT_EQ(f.reason(true), "integrity: no work on the stream");
  EXPECT_FALSE(f.recheck_device());
  Integrity record;
  record_refusal(record, f);
  ASSERT_EQ(record.checks.size(), 2u);
  EXPECT_EQ(record.checks[0].name, integrity_check::work_on_stream);
  EXPECT_EQ(record.checks[0].outcome, CheckOutcome::failed);
  EXPECT_EQ(record.checks[0].detail, "no work on the stream");
  EXPECT_EQ(record.checks[1].name, integrity_check::output_after_timing);
  EXPECT_EQ(record.checks[1].outcome, CheckOutcome::not_run);
  EXPECT_EQ(record.checks[1].detail, "not measured");
}

TEST(CellFailure, AllocationsAreOomAndLeaveTheDeviceAlone) {
  const Failure device = classify_failure(OutOfMemoryError("cudaMalloc of 8 bytes: out of memory"));
  EXPECT_EQ(device.kind, FailureKind::out_of_memory);
  EXPECT_EQ(device.status, BenchmarkStatus::oom);
  EXPECT_EQ(device.reason(false), "cudaMalloc of 8 bytes: out of memory");  // no device verdict
  EXPECT_FALSE(device.recheck_device());
  const Failure host = classify_failure(std::bad_alloc());
  EXPECT_EQ(host.kind, FailureKind::host_allocation);
  EXPECT_EQ(host.status, BenchmarkStatus::oom);
  EXPECT_EQ(host.reason(true), "host allocation failed");
}

TEST(CellFailure, AnUnsupportedShapeIsUnsupported) {
  const Failure f = classify_failure(providers::UnsupportedShape("no algorithm for this shape"));
  EXPECT_EQ(f.kind, FailureKind::unsupported_shape);
  EXPECT_EQ(f.status, BenchmarkStatus::unsupported);
  EXPECT_EQ(f.reason(true), "no algorithm for this shape");
}

TEST(CellFailure, ADeviceErrorRechecksTheDeviceAndSaysWhenItIsLost) {
  const Failure f = classify_failure(DeviceError("illegal address", DeviceFault::kernel_fault));
  EXPECT_EQ(f.kind, FailureKind::device);
  EXPECT_EQ(f.status, BenchmarkStatus::failed);
  EXPECT_TRUE(f.recheck_device());
  EXPECT_FALSE(f.during_capture);
  EXPECT_EQ(f.fault, DeviceFault::kernel_fault);
  EXPECT_EQ(f.reason(true), "illegal address");
  EXPECT_EQ(f.reason(false), kLost);
  const Failure capture = classify_failure(CaptureError("capture refused", DeviceFault::capture_rejected));
  EXPECT_EQ(capture.kind, FailureKind::device);
  EXPECT_TRUE(capture.during_capture);
  EXPECT_EQ(capture.fault, DeviceFault::capture_rejected);
}

TEST(CellFailure, AnyOtherErrorFailsTheCellWithItsMessage) {
  for (const Failure& f : {classify_failure(ContractError("no graphs here")),
                           classify_failure(providers::ConfigRefused("no such config")),
                           classify_failure(providers::ProviderError("CALIBER_ERROR 3")),
                           classify_failure(std::runtime_error("boom"))}) {
    EXPECT_EQ(f.status, BenchmarkStatus::failed) << f.what;
    EXPECT_FALSE(f.recheck_device()) << f.what;
    EXPECT_EQ(f.reason(false), f.what);
  }
  EXPECT_EQ(classify_failure(ContractError("x")).kind, FailureKind::contract);
  EXPECT_EQ(classify_failure(providers::ConfigRefused("x")).kind, FailureKind::provider);
  EXPECT_EQ(classify_failure(providers::ProviderError("x")).kind, FailureKind::provider);
  EXPECT_EQ(classify_failure(std::runtime_error("x")).kind, FailureKind::other);
  EXPECT_EQ(classify_failure(std::runtime_error("boom")).what, "boom");
}

TEST(CellFailure, WithDeviceVerdictAddsTheNoteOnlyWhenTheDeviceIsLost) {
  EXPECT_EQ(with_device_verdict("illegal address", true), "illegal address");
  EXPECT_EQ(with_device_verdict("illegal address", false), kLost);
}

TEST(CellFailure, BuildingTheInputsEndsTheShapeOnAllocationsAndDeviceErrorsOnly) {
  const auto oom = inputs_failure(classify_failure(OutOfMemoryError("out of memory")));
  ASSERT_TRUE(oom.has_value());
  EXPECT_EQ(oom->status, BenchmarkStatus::oom);
  EXPECT_EQ(oom->reason, "building the inputs: out of memory");
  const auto host = inputs_failure(classify_failure(std::bad_alloc()));
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->status, BenchmarkStatus::oom);
  EXPECT_EQ(host->reason, "building the inputs: host allocation failed");
  const auto device = inputs_failure(classify_failure(DeviceError("launch failed")));
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->status, BenchmarkStatus::failed);
  EXPECT_EQ(device->reason, "building the inputs: launch failed");  // no device verdict here
  EXPECT_FALSE(inputs_failure(classify_failure(std::runtime_error("boom"))).has_value());
  EXPECT_FALSE(inputs_failure(classify_failure(providers::UnsupportedShape("no"))).has_value());
  EXPECT_FALSE(inputs_failure(classify_failure(IntegrityError("inputs_unchanged", "no"))).has_value());
}

TEST(CellFailure, AKernelOnlyFailureIsRefusedClassifiedRecoverableOrTheCells) {
  EXPECT_EQ(kernel_only_failure(classify_failure(IntegrityError("work_on_stream", "x"))), KernelOnlyFailure::refused);
  EXPECT_EQ(kernel_only_failure(classify_failure(DeviceError("x"))), KernelOnlyFailure::capture);
  EXPECT_EQ(kernel_only_failure(classify_failure(CaptureError("x"))), KernelOnlyFailure::capture);
  EXPECT_EQ(kernel_only_failure(classify_failure(ContractError("x"))), KernelOnlyFailure::recoverable);
  EXPECT_EQ(kernel_only_failure(classify_failure(providers::ProviderError("x"))), KernelOnlyFailure::recoverable);
  EXPECT_EQ(kernel_only_failure(classify_failure(providers::UnsupportedShape("x"))), KernelOnlyFailure::recoverable);
  EXPECT_EQ(kernel_only_failure(classify_failure(OutOfMemoryError("x"))), KernelOnlyFailure::ends_cell);
  EXPECT_EQ(kernel_only_failure(classify_failure(std::bad_alloc())), KernelOnlyFailure::ends_cell);
  EXPECT_EQ(kernel_only_failure(classify_failure(std::runtime_error("x"))), KernelOnlyFailure::ends_cell);
}

}  // namespace
}  // namespace caliber::runner
