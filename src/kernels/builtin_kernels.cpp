// The working set of caliber bench's built-in kernels, and a workload as a checked subject.
#include "kernels/workload.h"

namespace caliber::bench {

std::uint64_t builtin_working_set_bytes(std::string_view kernel, std::uint64_t size_bytes) {
  if (kernel == "copy" || kernel == "scale" || kernel == "two_streams" || kernel == "scale_blocks" ||
      kernel == "multi_kernel" || kernel == "fork_join" || kernel == "memset_scale") {
    return 2 * size_bytes;
  }
  if (kernel == "gemm_bf16") return 3 * kGemmBytesPerMatrix;
  return 2 * kTinyElements * sizeof(float);
}


integrity::Subject checked_subject(Workload& workload, std::int64_t launches) {
  integrity::Subject s;
  Workload* w = &workload;
  s.call = [w, launches](const LaunchContext& ctx) {
    for (std::int64_t i = 0; i < launches; ++i) w->launch(ctx);
  };
  s.buffers = w->declared_buffers();
  s.poison_outputs = [w] { w->poison_outputs(); };
  s.judge = [w](bool) { return w->verify(); };
  s.judge_description = "the kernel's own reference, every output element of input copy 0";
  s.fresh_inputs_apply = false;  // caliber's own kernels: nothing to remember a result for them
  return s;
}

}  // namespace caliber::bench
