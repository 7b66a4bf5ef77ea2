// The host backend's built-in providers.
#pragma once

#include <memory>

#include "providers/provider.h"

namespace caliber::providers::host {

std::unique_ptr<Provider> make_naive_provider(ops::OpType op);
std::unique_ptr<Provider> make_caliber_provider(ops::OpType op);

}  // namespace caliber::providers::host
