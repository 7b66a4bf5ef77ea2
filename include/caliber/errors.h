// Error types. Each maps to one CLI exit code, so callers never guess what a failure means.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace caliber {

// Base of every error caliber throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid command-line usage or option value. CLI exit code 2; nothing is written.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A contract that cannot be measured as asked (an impossible combination, a non-positive count,
// an instrument this backend lacks). CLI exit code 2; nothing is measured.
class ContractError : public Error {
 public:
  using Error::Error;
};

// Malformed or inconsistent input file. The message names file, line and field. CLI exit code 2.
class InputError : public Error {
 public:
  InputError(const std::string& file, long line, const std::string& field, const std::string& what);
  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& field() const { return field_; }
  // The reason alone, without file, line and field (to rethrow with a better location).
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  long line_;
  std::string field_;
  std::string reason_;
};

// What kind of device failure an error reports, as far as the backend can tell from its code.
enum class DeviceFault {
  unspecified,       // any other failure (an invalid argument, a launch the device refused, ...)
  capture_rejected,  // graph capture refused an operation of the call (a synchronization, an
                     // unjoined fork, a call capture does not allow)
  kernel_fault,      // the device faulted executing work: an illegal address or instruction, a
                     // trap or assertion, a launch that failed or timed out on the device
};

// The device (or host) failed while measuring: a launch error, an illegal address, an
// allocation failure. CLI exit code 1; no number is reported for the failed measurement.
class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& what, DeviceFault fault = DeviceFault::unspecified)
      : Error(what), fault_(fault) {}
  DeviceFault fault() const { return fault_; }

 private:
  DeviceFault fault_;
};

// A device failure while a call was being captured into a graph (from the start of the capture to
// the instantiated graph): the kernel-only measurement of a graph schedule could not be built.
// The runner classifies it (docs/runner.md, "When the kernel-only measurement fails").
class CaptureError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// The measured call's work is not where the contract's timer looks (launched on a stream the
// measured stream does not order, from another thread, escaping a captured graph), or it launched
// no device work at all: the contract would time something else than the call, so no number is
// reported (docs/integrity.md). CLI exit code 1; the runner records the cell as failed.
class IntegrityError : public Error {
 public:
  // `check`: the integrity check that refused (integrity_check::*, include/caliber/integrity.h).
  IntegrityError(std::string check, const std::string& what) : Error(what), check_(std::move(check)) {}
  const std::string& check() const { return check_; }

 private:
  std::string check_;
};

// An allocation the device (or, on the host backend, the host) could not satisfy. The runner
// records it as status oom; CLI exit code 1 like any DeviceError.
class OutOfMemoryError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// Named preflight checks failed before anything was measured. what() is one line per failure,
// "PREFLIGHT_FAILED check=<name>: <detail>". CLI exit code 3.
class PreflightError : public Error {
 public:
  struct Failure {
    std::string check;
    std::string detail;
  };
  explicit PreflightError(std::vector<Failure> failures);
  const std::vector<Failure>& failures() const { return failures_; }

 private:
  std::vector<Failure> failures_;
};

// Runs of different caliber (or without a run identity) were refused before any latency was
// read. The differences were already printed ("!!! [caliber] ..."). CLI exit code 4.
class CaliberMismatchError : public Error {
 public:
  using Error::Error;
};

}  // namespace caliber
