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

// The ABI half of the plugin_loads preflight (PluginSpec::abi_check; docs/preflight.md): calls
// the entry function found in a loaded library with this caliber's ABI version and `op`, and
// checks the provider struct it fills (ABI version, struct size, run function, backend, flags).
// Returns "" when the plugin speaks this ABI (or does not offer the op: its cells are then
// not_configured), else the problem ("was built for plugin ABI version 99; this caliber speaks
// version 1", "refused to load for op rmsnorm: ..."). The entry must not touch the device
// (include/caliber/plugin_abi.h), so this runs in caliber run's parent process.
std::string plugin_entry_problem(void* entry, ops::OpType op);

}  // namespace caliber::providers
