// cuda `selftest_fault`: a self-test provider that must fail. It writes through an invalid
// address, a sticky error that poisons its process's CUDA context: `caliber run` must record
// that one cell as failed and continue the others in a fresh worker (tests/gpu). Reached only
// when a matrix names `builtin:selftest_fault`.
#include "backends/cuda/cuda_check.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

__global__ void selftest_fault_kernel(float* p) { p[threadIdx.x] = 1.0f; }

class SelftestFault final : public providers::Provider {
 public:
  std::string name() const override { return "selftest_fault"; }
  std::string detail(const ops::OpShape&) const override {
    return "self-test: writes through an invalid address (a sticky device error); must fail";
  }
  providers::Support supports(const ops::OpShape&) const noexcept override { return providers::Support::yes(); }
  void run(const ops::OpShape&, const providers::OpBuffers&, void* stream) override {
    selftest_fault_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(reinterpret_cast<float*>(0x10));
    CALIBER_CUDA_CHECK_LAUNCH();
  }
};

}  // namespace

std::unique_ptr<providers::Provider> make_selftest_fault_provider() { return std::make_unique<SelftestFault>(); }

}  // namespace caliber::cuda
