// What a failed kernel-only measurement means for its cell (docs/runner.md, "When the kernel-only
// measurement fails"): the facts the runner has after the failure, and the class they make.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "results/benchmark_results.h"
#include "caliber/errors.h"

namespace caliber::runner {

struct CaptureFailureFacts {
  bool during_capture = false;  // thrown while the call was being captured into a graph (CaptureError)
  DeviceFault fault = DeviceFault::unspecified;
  bool device_usable_after = true;  // synchronize + pending-error check passed after the failure
};

// In this order (the eager measurement of the same call had worked, or no kernel-only attempt is made):
// - the device reported a fault executing work: fatal_device_fault (the captured work is broken);
// - the device is unusable after another failure: poisoned_context (the attempt broke it);
// - capture refused the call, the device still works: recoverable;
// - the graph was built and its replays failed otherwise: fatal_device_fault.
CaptureFailureClass classify_capture_failure(const CaptureFailureFacts& facts);

// Whether a row of this class may report a number (the eager median).
bool capture_failure_keeps_eager_number(CaptureFailureClass c);

// The reason capture is denied to the row's provider for the rest of the run, when the row's
// kernel-only attempt poisoned the context; nothing otherwise.
std::optional<std::string> capture_denial_from(const BenchmarkResultRow& row);

// Denials carried from run to run (caliber run --capture-denied FILE; caliber batch keeps one file
// per op for the whole campaign, docs/batch.md): lines of provider<TAB>why, '#' comments.
// Reading refuses a malformed line (InputError naming the file and line); merging adds the new
// providers (the first reason stays) and rewrites the file atomically.
std::map<std::string, std::string> read_capture_denials(const std::string& file);
void merge_capture_denials(const std::string& file, const std::map<std::string, std::string>& denials);

}  // namespace caliber::runner
