// The pieces of plugin ABI v2 (include/caliber/plugin_abi.h) that caliber's own code shares: the
// problem of a described op's shape as the ABI passes it, and a v2 entry called and checked.
// plugin_provider.cpp makes providers of them; described_reference.cpp runs an op's reference.
#pragma once

#include <string>
#include <vector>

#include "caliber/plugin_abi.h"
#include <optional>

#include "ops/op_description.h"
#include "ops/op_shape.h"

namespace caliber::providers {

// A caliber_problem_v2 and the strings and arrays it points into, for one shape of a described
// op. `dtype`: the problem's (a reference problem's is its precision, CALIBER_DTYPE_FP64 ...);
// each tensor's element type is its own, or with `reference` the one the reference computes in
// (reference_element).
class ProblemV2 {
 public:
  ProblemV2(const ops::OpShape& shape, caliber_dtype dtype,
            std::optional<ops::ReferencePrecision> reference = std::nullopt);
  ProblemV2(const ProblemV2&) = delete;
  ProblemV2& operator=(const ProblemV2&) = delete;
  const caliber_problem_v2* get() const { return &p_; }

 private:
  std::string op_, layout_, args_json_, sha256_;
  std::vector<std::string> arg_names_;
  std::vector<const char*> arg_name_ptrs_;
  std::vector<double> arg_values_;
  std::vector<std::string> tensor_names_;
  std::vector<std::vector<std::int64_t>> dims_;
  std::vector<caliber_tensor_v2> inputs_, outputs_;
  std::vector<caliber_dtype> input_dtypes_, output_dtypes_;
  caliber_problem_v2 p_{};
};

// The ABI's dtype of a shape dtype and of an element type.
caliber_dtype abi_dtype(DType d);
caliber_dtype abi_dtype(ElementType e);
// The element type a described op's reference reads or writes a tensor of element type `e` in:
// integers and bool in their own, floating-point tensors in the precision (docs/user-ops.md,
// "The reference").
ElementType reference_element(ops::ReferencePrecision precision, ElementType e);

// One line of a plugin's text buffer (newlines folded), "(no message)" when empty.
std::string plugin_text(const char* buffer);
inline constexpr std::size_t kPluginTextSize = 512;

// An entry's filled provider struct (caliber_provider_v1 or _v2), or why the plugin does not
// offer the op.
template <class ProviderStruct>
struct LoadedPlugin {
  ProviderStruct provider{};
  bool offered = true;
  std::string not_offered_reason;
  std::string build_flags;  // what the library declares it was built with (CALIBER_DECLARE_BUILD_FLAGS), or ""
};
using LoadedV2 = LoadedPlugin<caliber_provider_v2>;

// dlopens `library`, calls `symbol` as a caliber_plugin_entry_v2 for `op_name` and checks the
// struct it fills. Throws UsageError naming library:symbol and what is wrong.
LoadedV2 load_plugin_v2(const std::string& library, const std::string& symbol, const std::string& op_name);

}  // namespace caliber::providers
