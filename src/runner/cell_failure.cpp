#include "runner/cell_failure.h"

#include <new>

#include "providers/provider.h"

namespace caliber::runner {

Failure classify_failure(const std::exception& e) {
  Failure f;
  f.what = e.what();
  // The most derived types first: OutOfMemoryError and CaptureError are DeviceErrors,
  // UnsupportedShape is a ProviderError.
  if (const auto* integrity = dynamic_cast<const IntegrityError*>(&e)) {
    f.kind = FailureKind::integrity;
    f.integrity_check = integrity->check();
  } else if (dynamic_cast<const OutOfMemoryError*>(&e)) {
    f.kind = FailureKind::out_of_memory;
    f.status = BenchmarkStatus::oom;
  } else if (dynamic_cast<const std::bad_alloc*>(&e)) {
    f.kind = FailureKind::host_allocation;
    f.status = BenchmarkStatus::oom;
    f.what = "host allocation failed";
  } else if (dynamic_cast<const providers::UnsupportedShape*>(&e)) {
    f.kind = FailureKind::unsupported_shape;
    f.status = BenchmarkStatus::unsupported;
  } else if (const auto* device = dynamic_cast<const DeviceError*>(&e)) {
    f.kind = FailureKind::device;
    f.during_capture = dynamic_cast<const CaptureError*>(&e) != nullptr;
    f.fault = device->fault();
  } else if (dynamic_cast<const ContractError*>(&e)) {
    f.kind = FailureKind::contract;
  } else if (dynamic_cast<const providers::ProviderError*>(&e)) {
    f.kind = FailureKind::provider;
  }
  return f;
}

std::string Failure::reason(bool device_usable) const {
  if (kind == FailureKind::integrity) return "integrity: " + what;
  if (kind == FailureKind::device) return with_device_verdict(what, device_usable);
  return what;
}

std::string with_device_verdict(std::string reason, bool device_usable) {
  if (!device_usable) reason += kDeviceLostNote;
  return reason;
}

bool device_healthy(Backend& backend) {
  try {
    backend.synchronize_device();
    backend.check_errors();
    return true;
  } catch (...) {
    return false;
  }
}

void record_refusal(Integrity& integrity, const Failure& failure) {
  integrity.record(failure.integrity_check, CheckOutcome::failed, failure.what);
  integrity.record(integrity_check::output_after_timing, CheckOutcome::not_run, "not measured");
}

std::optional<InputsFailure> inputs_failure(const Failure& failure) {
  switch (failure.kind) {
    case FailureKind::out_of_memory:
    case FailureKind::host_allocation:
    case FailureKind::device:
      return InputsFailure{failure.status, "building the inputs: " + failure.what};
    default:
      return std::nullopt;
  }
}

KernelOnlyFailure kernel_only_failure(const Failure& failure) {
  switch (failure.kind) {
    case FailureKind::integrity:
      return KernelOnlyFailure::refused;
    case FailureKind::device:
      return KernelOnlyFailure::capture;
    case FailureKind::contract:
    case FailureKind::provider:
    case FailureKind::unsupported_shape:  // a ProviderError
      return KernelOnlyFailure::recoverable;
    default:
      return KernelOnlyFailure::ends_cell;
  }
}

}  // namespace caliber::runner
