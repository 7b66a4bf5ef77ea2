// cuda `cudnn` provider: softmax through cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE, instance
// mode over the last dimension). libcudnn.so.9 is loaded at run time (dlopen; the path can be
// given with $CALIBER_CUDNN_LIBRARY), so caliber builds and runs without cuDNN: a machine that
// lacks it records not_configured with the loader's reason. cuDNN offers RMSNorm and LayerNorm
// only through its graph (backend) API, which caliber does not drive: for those ops the provider
// reports not_configured with that reason.
#include <cudnn.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

using providers::OpBuffers;
using providers::Support;

// The few cuDNN entry points used, resolved from the library at run time.
struct CudnnApi {
  decltype(&cudnnGetVersion) get_version = nullptr;
  decltype(&cudnnGetErrorString) error_string = nullptr;
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnDestroy) destroy = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnCreateTensorDescriptor) create_tensor = nullptr;
  decltype(&cudnnSetTensor4dDescriptor) set_tensor_4d = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
  decltype(&cudnnSoftmaxForward) softmax_forward = nullptr;
  std::string library;
  std::string error;  // why the library is not usable; empty when it is
};

template <typename F>
void resolve(void* handle, const char* name, F& fn, std::string& error) {
  fn = reinterpret_cast<F>(::dlsym(handle, name));
  if (!fn && error.empty()) error = str_cat("symbol ", name, " not found");
}

const CudnnApi& cudnn_api() {
  static CudnnApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("CALIBER_CUDNN_LIBRARY");
    api.library = env && *env ? env : "libcudnn.so.9";
    void* handle = ::dlopen(api.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      api.error = str_cat("cuDNN could not be loaded (", api.library, "): ", why ? why : "unknown error",
                          "; set CALIBER_CUDNN_LIBRARY to its path");
      return;
    }
    resolve(handle, "cudnnGetVersion", api.get_version, api.error);
    resolve(handle, "cudnnGetErrorString", api.error_string, api.error);
    resolve(handle, "cudnnCreate", api.create, api.error);
    resolve(handle, "cudnnDestroy", api.destroy, api.error);
    resolve(handle, "cudnnSetStream", api.set_stream, api.error);
    resolve(handle, "cudnnCreateTensorDescriptor", api.create_tensor, api.error);
    resolve(handle, "cudnnSetTensor4dDescriptor", api.set_tensor_4d, api.error);
    resolve(handle, "cudnnDestroyTensorDescriptor", api.destroy_tensor, api.error);
    resolve(handle, "cudnnSoftmaxForward", api.softmax_forward, api.error);
    if (!api.error.empty()) api.error = str_cat(api.library, ": ", api.error);
  });
  return api;
}

void check_cudnn(cudnnStatus_t st, const char* call) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  const CudnnApi& api = cudnn_api();
  const std::string what = str_cat(call, " failed: ", api.error_string ? api.error_string(st) : "?", " (", static_cast<int>(st), ")");
  if (st == CUDNN_STATUS_NOT_SUPPORTED || st == CUDNN_STATUS_BAD_PARAM) throw providers::UnsupportedShape(what);
  throw DeviceError(what);
}

cudnnDataType_t cudnn_type(DType d) {
  switch (d) {
    case DType::fp32: return CUDNN_DATA_FLOAT;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::fp16: return CUDNN_DATA_HALF;
  }
  return CUDNN_DATA_FLOAT;
}

class CudnnProvider final : public providers::Provider {
 public:
  explicit CudnnProvider(ops::OpType op) : op_(op) {}
  std::string name() const override { return "cudnn"; }
  ~CudnnProvider() override {
    const CudnnApi& api = cudnn_api();
    if (desc_) api.destroy_tensor(desc_);
    if (handle_) api.destroy(handle_);
  }

  std::string detail(const ops::OpShape&) const override {
    const CudnnApi& api = cudnn_api();
    const std::size_t v = api.get_version ? api.get_version() : 0;
    return str_cat("cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE; cuDNN ", v,
                   ", the kernel is chosen inside cuDNN, opaque)");
  }

  std::optional<std::string> unavailable() const override {
    if (op_ != ops::OpType::softmax) {
      return str_cat("cuDNN offers ", ops::to_string(op_),
                     " only through its graph (backend) API, which caliber does not drive");
    }
    const CudnnApi& api = cudnn_api();
    if (!api.error.empty()) return api.error;
    return std::nullopt;
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != ops::OpType::softmax) return Support::no("different op");
    if (s.m > 2147483647LL || s.n > 2147483647LL) return Support::no("dimension above 2^31 - 1 (int descriptors)");
    return Support::yes();
  }

  void prepare(const ops::OpShape& s, Backend& backend) override {
    const CudnnApi& api = cudnn_api();
    if (!api.error.empty()) throw providers::ProviderError(api.error);
    if (!handle_) check_cudnn(api.create(&handle_), "cudnnCreate");
    check_cudnn(api.set_stream(handle_, static_cast<cudaStream_t>(backend.stream())), "cudnnSetStream");
    if (!desc_) check_cudnn(api.create_tensor(&desc_), "cudnnCreateTensorDescriptor");
    // x[m, n] as NCHW (m, n, 1, 1): instance mode normalizes over C*H*W = n per image.
    check_cudnn(api.set_tensor_4d(desc_, CUDNN_TENSOR_NCHW, cudnn_type(s.dtype), static_cast<int>(s.m),
                                  static_cast<int>(s.n), 1, 1),
                "cudnnSetTensor4dDescriptor");
  }

  void run(const ops::OpShape&, const OpBuffers& b, void*) override {
    if (!handle_) throw providers::ProviderError("cudnn: prepare() was not called");
    const float alpha = 1.0f, beta = 0.0f;
    check_cudnn(cudnn_api().softmax_forward(handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &alpha,
                                            desc_, b.inputs[0], &beta, desc_, b.output),
                "cudnnSoftmaxForward");
  }

 private:
  ops::OpType op_;
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t desc_ = nullptr;
};

}  // namespace

std::unique_ptr<providers::Provider> make_cudnn_provider(ops::OpType op) { return std::make_unique<CudnnProvider>(op); }

}  // namespace caliber::cuda
