// The cuda built-in providers by op and name.
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {

std::vector<std::string> builtin_provider_names(ops::OpType op) {
  if (op == ops::OpType::gemm) return {"caliber", "naive", "cublas", "cublaslt"};
  return {"caliber", "naive", "cudnn"};
}

std::unique_ptr<providers::Provider> make_builtin_provider(ops::OpType op, const std::string& name) {
  if (name == "cudnn") return op == ops::OpType::gemm ? nullptr : make_cudnn_provider(op);
  if (name == "selftest_fault") return make_selftest_fault_provider();
  if (name.rfind("selftest_", 0) == 0) return make_selftest_capture_provider(op, name);
  switch (op) {
    case ops::OpType::rmsnorm:
    case ops::OpType::layernorm:
      if (name == "caliber") return make_caliber_norm_provider(op);
      if (name == "naive") return make_naive_norm_provider(op);
      return nullptr;
    case ops::OpType::softmax:
      if (name == "caliber") return make_caliber_softmax_provider();
      if (name == "naive") return make_naive_softmax_provider();
      return nullptr;
    case ops::OpType::gemm:
      if (name == "caliber") return make_caliber_gemm_provider();
      if (name == "naive") return make_naive_gemm_provider();
      if (name == "cublas") return make_cublas_gemm_provider();
      if (name == "cublaslt") return make_cublaslt_gemm_provider();
      return nullptr;
    case ops::OpType::described:
      return nullptr;  // ops of your own have no built-in providers
  }
  return nullptr;
}

}  // namespace caliber::cuda
