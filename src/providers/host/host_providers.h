// The host backend's built-in providers.
#pragma once

#include <memory>

#include "providers/provider.h"

namespace caliber::providers::host {

std::unique_ptr<Provider> make_naive_provider(ops::OpType op);
std::unique_ptr<Provider> make_caliber_provider(ops::OpType op);
// gemm only: the caliber kernel with an autotuned panel width (a provider that chooses a config).
std::unique_ptr<Provider> make_tuned_gemm_provider();

}  // namespace caliber::providers::host
