// A described op's reference (docs/user-ops.md, "The reference"): the ABI v2 plugin its
// description names, run on copies of a shape's inputs converted to the description's precision
// (fp64 unless it says otherwise) — on the host, or for a cuda plugin on the device of the run's
// cuda backend (the converted copies uploaded, its outputs copied back). Every output comes back
// as doubles; the runner compares each provider's outputs with them (ops/correctness.h).
#pragma once

#include <string>
#include <vector>

#include "caliber/backend.h"
#include "ops/described_op.h"
#include "providers/plugin_v2.h"

namespace caliber::providers {

class DescribedReference {
 public:
  // Loads the plugin. Throws UsageError naming the description file and its reference field when
  // it does not load or does not offer the op, or when it is a cuda plugin and `backend` is not a
  // cuda backend (null: no backend, the host's reference only). A cuda reference runs on
  // `backend`'s stream, which must outlive this object.
  explicit DescribedReference(const ops::DescribedOp& op, Backend* backend = nullptr);
  ~DescribedReference();
  DescribedReference(const DescribedReference&) = delete;
  DescribedReference& operator=(const DescribedReference&) = delete;

  // Every output of `inputs` (tensors of the shape's dtype), row-major, as doubles. Throws
  // ProviderError when the reference declines the shape at this precision, fails, or leaves an
  // output element unwritten (its outputs start as NaN).
  std::vector<std::vector<double>> compute(const ops::OpShape& shape, const std::vector<ops::HostTensor>& inputs) const;

  // What compute() runs at for `dtype`: "fp64", "fp32", or the dtype's own name.
  std::string precision(DType dtype) const;
  // library:symbol, as its description resolves it.
  const std::string& where() const { return where_; }
  // Whether it runs on the device (a cuda plugin).
  bool on_device() const { return device_ != nullptr; }

 private:
  const ops::DescribedOp& op_;
  std::string where_;
  LoadedV2 loaded_;
  Backend* device_ = nullptr;  // a cuda reference's backend
};

}  // namespace caliber::providers
