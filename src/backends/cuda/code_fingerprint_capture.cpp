#include "backends/cuda/code_fingerprint_capture.h"

#include <unordered_set>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cupti_session.h"
#include "core/kernel_attribution.h"

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

void CodeFingerprintCapture::record_call(const std::function<void()>& call) {
  if (unavailable_) {
    call();
    return;
  }
  const auto synchronize = [] { synchronize_current_device(); };
  cupti::TracingLease lease;
  synchronize();
  cupti::drain();  // records of earlier work belong to no recorded call
  const std::uint64_t id = cupti::reserve_external_ids(1);
  cupti::push_external_id(id);
  try {
    call();
  } catch (...) {
    cupti::pop_external_id();
    throw;
  }
  cupti::pop_external_id();
  synchronize();
  const cupti::Drained d = cupti::drain();
  const auto samples = attribute_activity(d.activities, d.correlations, id, 1, {});
  for (const DeviceActivity& a : samples.at(0).counted) {
    if (a.kind == DeviceActivity::Kind::kernel && !a.mangled_name.empty()) {
      recorder_->on_kernel_executed(a.mangled_name);
    }
  }
}

CodeFingerprint CodeFingerprintCapture::fingerprint() const { return recorder_->fingerprint(); }

}  // namespace caliber::cuda
