// Providers from plugin libraries (include/caliber/plugin_abi.h, docs/plugins.md): ABI v1 for the
// shipped ops, ABI v2 for ops of your own (docs/user-ops.md).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "providers/provider.h"

namespace caliber::ops {
class DescribedOp;
}

namespace caliber::providers {

// Which op a plugin is asked for: a shipped op (ABI v1: its fixed problem struct, which plugins
// built for it keep reading), or an op of your own (ABI v2: its description's tensor lists). A
// Python provider is asked with ABI v2 whatever the op (load_plugin_provider).
struct PluginOp {
  PluginOp(const ops::DescribedOp& described) : op(&described) {}  // NOLINT: an op is what a plugin is asked for
  PluginOp(ops::OpType shipped);                      // NOLINT: the shipped op of that type
  const ops::DescribedOp* op;
  // Whether the entry is a caliber_plugin_entry_v2 (an op of your own).
  bool abi_v2() const;
  std::string name() const;
};

// Loads `library` (dlopen; a Python file's registered entry, registered_entries.h), finds
// `symbol`, calls it for `op` (ABI v2 for an op of your own or a Python provider, else v1) and
// checks the ABI version and the filled struct. A library that does not load, a missing symbol,
// another ABI version or a malformed provider struct throw UsageError with one line saying which.
// A plugin that does not offer the op, or is built for another backend than `backend`, loads but
// reports unavailable().
std::unique_ptr<Provider> load_plugin_provider(const std::string& library, const std::string& symbol,
                                               const PluginOp& op, BackendKind backend);

// The ABI half of the plugin_loads preflight (PluginSpec::abi_check; docs/preflight.md): calls
// the entry function found in a loaded library with this caliber's ABI version and `op`, and
// checks the provider struct it fills (ABI version, struct size, run function, backend, flags).
// Returns "" when the plugin speaks this ABI (or does not offer the op: its cells are then
// not_configured), else the problem ("was built for plugin ABI version 99; this caliber speaks
// version 1", "refused to load for op rmsnorm: ..."). The entry must not touch the device
// (include/caliber/plugin_abi.h), so this runs in caliber run's parent process.
// as_reference: the entry is a described op's reference, which must offer the op, and which
// runs on the device only on a cuda run: a cuda reference is refused when `run_backend` (the run's
// backend, when chosen before the device is opened) is another; with --backend auto the worker
// refuses it (providers/described_reference.h).
std::string plugin_entry_problem(void* entry, const PluginOp& op, bool as_reference = false,
                                 std::optional<BackendKind> run_backend = std::nullopt);

// Why a described op's cuda reference cannot run on a run whose backend is `backend` ("host", or
// "none" where there is no backend): the one sentence the preflight and the worker say.
std::string cuda_reference_refusal(const std::string& backend);

}  // namespace caliber::providers
