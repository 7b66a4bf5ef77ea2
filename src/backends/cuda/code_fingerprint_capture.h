// The code a cuda run executed, for screening (docs/screen.md): CUPTI's module-load callback feeds
// every loaded cubin to a CodeFingerprintRecorder, and record_call() runs one call under kernel
// tracing with its own external correlation id to learn which kernels that call launched (by
// identity, never by name). Declared without CUDA or CUPTI types.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fingerprint/code_fingerprint.h"

namespace caliber::cuda {

class CodeFingerprintCapture {
 public:
  // Starts observing module loads. Construct before the first kernel launch of the process: a
  // module loaded earlier is not seen and its kernels end up `unresolved` in the fingerprint.
  CodeFingerprintCapture();
  ~CodeFingerprintCapture();
  CodeFingerprintCapture(const CodeFingerprintCapture&) = delete;
  CodeFingerprintCapture& operator=(const CodeFingerprintCapture&) = delete;

  // Why no fingerprint can be taken (CUPTI missing, callbacks refused), or nullopt.
  const std::optional<std::string>& unavailable() const { return unavailable_; }

  // Records the kernels a call launched, by their compiled names (the census of the call,
  // Backend::census_call, attributed them to it by identity).
  void record_kernels(const std::vector<std::string>& mangled_names);

  CodeFingerprint fingerprint() const;
  void forget_executed_kernels() { recorder_->forget_executed(); }

 private:
  std::optional<std::string> unavailable_;
  std::shared_ptr<CodeFingerprintRecorder> recorder_;
};

}  // namespace caliber::cuda
