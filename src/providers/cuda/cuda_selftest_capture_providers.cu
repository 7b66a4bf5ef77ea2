// cuda self-test providers for the classes of a failed kernel-only measurement (docs/runner.md,
// "When the kernel-only measurement fails"). Each computes the op correctly with caliber's own
// provider; only while its stream is being captured into a graph does it add what makes the
// capture fail:
//   selftest_capture_sync    synchronizes the stream: capture refuses it (recoverable)
//   selftest_replay_fault    captures a kernel that writes through an invalid address: the
//                            replays fault (fatal_device_fault)
//   selftest_capture_poison  starts a faulting kernel on a stream of its own, then synchronizes
//                            the captured one: capture refuses the call, and the device is then
//                            unusable (poisoned_context)
// Reached only when a matrix names `builtin:<name>` (tests/gpu).
#include <memory>
#include <string>

#include "backends/cuda/cuda_check.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

__global__ void write_through_invalid_address(float* p) { p[threadIdx.x] = 1.0f; }

// Waits about `ns` before the invalid write, so that the call that follows its launch reports
// its own error, not this fault.
__global__ void write_through_invalid_address_later(float* p, unsigned long long ns) {
  const unsigned long long start = clock64();
  const unsigned long long cycles = ns * 2;  // > 1 cycle per ns at any H100/H200 clock
  while (static_cast<unsigned long long>(clock64()) - start < cycles) {
  }
  p[threadIdx.x] = 1.0f;
}

bool capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status{};
  CALIBER_CUDA_CHECK(cudaStreamIsCapturing(s, &status));
  return status != cudaStreamCaptureStatusNone;
}

class SelftestCapture final : public providers::Provider {
 public:
  enum class Kind { sync, replay_fault, poison };
  SelftestCapture(ops::OpType op, Kind kind) : inner_(make_builtin_provider(op, "caliber")), kind_(kind) {}

  std::string name() const override {
    switch (kind_) {
      case Kind::sync: return "selftest_capture_sync";
      case Kind::replay_fault: return "selftest_replay_fault";
      case Kind::poison: return "selftest_capture_poison";
    }
    return "";
  }
  std::string detail(const ops::OpShape& s) const override {
    const char* what = kind_ == Kind::sync           ? "synchronizes its stream when captured"
                       : kind_ == Kind::replay_fault ? "captures a kernel that faults when replayed"
                                                     : "breaks the device when captured";
    return std::string("self-test: ") + inner_->detail(s) + "; " + what;
  }
  providers::Support supports(const ops::OpShape& s) const noexcept override { return inner_->supports(s); }
  void prepare(const ops::OpShape& s, Backend& backend) override {
    inner_->prepare(s, backend);
    if (kind_ == Kind::poison && !side_) CALIBER_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
  }
  void run(const ops::OpShape& s, const providers::OpBuffers& b, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    inner_->run(s, b, stream);
    if (!capturing(st)) return;
    switch (kind_) {
      case Kind::sync:
        CALIBER_CUDA_CHECK(cudaStreamSynchronize(st));
        return;
      case Kind::replay_fault:
        write_through_invalid_address<<<1, 32, 0, st>>>(reinterpret_cast<float*>(0x10));
        CALIBER_CUDA_CHECK_LAUNCH();
        return;
      case Kind::poison:
        write_through_invalid_address_later<<<1, 32, 0, side_>>>(reinterpret_cast<float*>(0x10), 2'000'000);
        CALIBER_CUDA_CHECK_LAUNCH();
        CALIBER_CUDA_CHECK(cudaStreamSynchronize(st));
        return;
    }
  }
  void release() override {
    inner_->release();
    // The side stream of a poisoned context is not destroyed: no call may touch that context.
  }

 private:
  std::unique_ptr<providers::Provider> inner_;
  Kind kind_;
  cudaStream_t side_{};
};

}  // namespace

std::unique_ptr<providers::Provider> make_selftest_capture_provider(ops::OpType op, const std::string& name) {
  if (name == "selftest_capture_sync") return std::make_unique<SelftestCapture>(op, SelftestCapture::Kind::sync);
  if (name == "selftest_replay_fault") return std::make_unique<SelftestCapture>(op, SelftestCapture::Kind::replay_fault);
  if (name == "selftest_capture_poison") return std::make_unique<SelftestCapture>(op, SelftestCapture::Kind::poison);
  return nullptr;
}

}  // namespace caliber::cuda
