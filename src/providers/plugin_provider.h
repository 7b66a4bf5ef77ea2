// Providers from plugin libraries (include/caliber/plugin_abi.h, docs/plugins.md).
#pragma once

#include <memory>
#include <string>

#include "providers/provider.h"

namespace caliber::providers {

// Loads `library` (dlopen), finds `symbol`, calls it for `op` and checks the ABI version and the
// filled struct. A library that does not load, a missing symbol, another ABI version or a
// malformed provider struct throw UsageError with one line saying which. A plugin that does not
// offer the op, or is built for another backend than `backend`, loads but reports unavailable().
std::unique_ptr<Provider> load_plugin_provider(const std::string& library, const std::string& symbol,
                                               ops::OpType op, BackendKind backend);

// Only checks that the plugin loads and speaks this ABI (what `caliber run` does before it starts
// a worker). Same errors as load_plugin_provider.
void check_plugin_loads(const std::string& library, const std::string& symbol, ops::OpType op);

}  // namespace caliber::providers
