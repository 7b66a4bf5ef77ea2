#include "backends/cuda/code_fingerprint_capture.h"

#include "backends/cuda/cupti_session.h"

namespace caliber::cuda {

CodeFingerprintCapture::CodeFingerprintCapture() : recorder_(std::make_shared<CodeFingerprintRecorder>()) {
  // The observer holds the recorder, not this object: a late callback after destruction is harmless.
  std::shared_ptr<CodeFingerprintRecorder> recorder = recorder_;
  unavailable_ = cupti::set_module_observer(
      [recorder](std::uint32_t id, const void* image, std::size_t size) { recorder->on_module_loaded(id, image, size); });
}

CodeFingerprintCapture::~CodeFingerprintCapture() {
  if (!unavailable_) cupti::set_module_observer({});
}

void CodeFingerprintCapture::record_kernels(const std::vector<std::string>& mangled_names) {
  if (unavailable_) return;
  for (const std::string& name : mangled_names) {
    if (!name.empty()) recorder_->on_kernel_executed(name);
  }
}

CodeFingerprint CodeFingerprintCapture::fingerprint() const { return recorder_->fingerprint(); }

}  // namespace caliber::cuda
