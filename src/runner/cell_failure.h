// What an exception means for a cell of `caliber run` (docs/runner.md: "Failures never end the
// run"): the one place that knows caliber's exception types, and what each kind implies where it
// was thrown (a cell's stretch, the building of the shape's inputs, a kernel-only measurement).
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "caliber/integrity.h"

namespace caliber::runner {

enum class FailureKind {
  integrity,          // IntegrityError: a check refused to let the call be timed
  out_of_memory,      // OutOfMemoryError: a device (or host backend) allocation
  host_allocation,    // std::bad_alloc
  unsupported_shape,  // providers::UnsupportedShape: prepare() found the shape cannot run
  device,             // any other DeviceError (CaptureError included): the device may be lost
  contract,           // ContractError
  provider,           // any other providers::ProviderError (ConfigRefused included)
  other,              // any other std::exception
};

struct Failure {
  FailureKind kind = FailureKind::other;
  BenchmarkStatus status = BenchmarkStatus::failed;  // of a cell that ends with it
  std::string what;                                  // the message; "host allocation failed" for std::bad_alloc
  std::string integrity_check;                       // integrity: the check that refused (integrity_check::*)
  bool during_capture = false;                       // device: thrown while capturing a graph (CaptureError)
  DeviceFault fault = DeviceFault::unspecified;      // device: what the backend could tell of it

  // A device error other than an allocation: whether the device still works is asked again
  // (device_healthy), and the answer decides whether the run needs a fresh process.
  bool recheck_device() const { return kind == FailureKind::device; }
  // The row's reason when a cell ends with it; `device_usable`: device_healthy's answer after a
  // device error (ignored for the other kinds).
  std::string reason(bool device_usable) const;
};

Failure classify_failure(const std::exception& e);

// Appended to a failed cell's reason when its error left the device unusable.
inline constexpr std::string_view kDeviceLostNote =
    " (the device is no longer usable: the next cells run in a fresh process)";
std::string with_device_verdict(std::string reason, bool device_usable);

// Whether the device still works after an error (synchronize + pending-error check).
bool device_healthy(Backend& backend);

// A cell that ends with an integrity refusal records the refusing check failed and the check of
// the output after timing not run.
void record_refusal(Integrity& integrity, const Failure& failure);

// Building a shape's inputs: allocations (oom) and device errors (failed) end every cell of the
// shape with "building the inputs: <what>"; nullopt for any other kind, which propagates.
struct InputsFailure {
  BenchmarkStatus status = BenchmarkStatus::failed;
  std::string reason;
};
std::optional<InputsFailure> inputs_failure(const Failure& failure);

// A failed kernel-only measurement (docs/runner.md, "When the kernel-only measurement fails"):
enum class KernelOnlyFailure {
  refused,      // integrity: the row records the refusal and cannot end ok
  capture,      // device: classified by classify_capture_failure once the device's health is known
  recoverable,  // contract or provider error: the eager median may stand, marked
  ends_cell,    // anything else: the cell fails as it would anywhere else (an allocation is oom)
};
KernelOnlyFailure kernel_only_failure(const Failure& failure);

}  // namespace caliber::runner
