#include "runner/bound_provider.h"

#include <fmt/format.h>

#include "ops/op_catalog.h"
#include "providers/plugin_provider.h"
#include "modules/builtins.h"

namespace caliber::runner {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// A built-in provider of the plan's op, or why there is none.
void bind_builtin(BoundProvider& b, const RunPlan& plan, BackendKind backend) {
  const MatrixProvider& p = *b.entry;
  if (plan.described->shipped()) b.impl = providers::make_builtin_provider(backend, plan.op, p.entrypoint->builtin);
  if (!b.impl && !plan.described->shipped()) {
    b.not_configured = fmt::format("no built-in provider '{}' for {}: a described op's providers are plugins "
                                   "(docs/user-ops.md)",
                                   p.entrypoint->builtin, plan.op_name);
  } else if (!b.impl) {
    b.not_configured = fmt::format("no built-in provider '{}' for {} on the {} backend (built-ins: {})",
                                   p.entrypoint->builtin, ops::to_string(plan.op), to_string(backend),
                                   join_names(providers::builtin_provider_names(backend, plan.op)));
  }
}

}  // namespace

std::vector<BoundProvider> bind_providers(const RunPlan& plan, BackendKind backend) {
  std::vector<BoundProvider> out;
  for (const MatrixProvider& p : plan.matrix.providers) {
    BoundProvider b;
    b.entry = &p;
    if (!p.enabled) {
      b.not_configured = fmt::format("disabled in the baseline matrix: {}", p.skip_reason.value_or(""));
    } else if (p.entrypoint->kind == Entrypoint::Kind::builtin) {
      bind_builtin(b, plan, backend);
    } else {
      try {
        b.impl = providers::load_plugin_provider(resolved_library(*p.entrypoint, plan.matrix.file),
                                                 p.entrypoint->symbol, *plan.described, backend);
      } catch (const std::exception& e) {
        b.not_configured = e.what();
      }
    }
    if (b.impl) {
      if (auto why = b.impl->unavailable()) {
        b.not_configured = *why;
        b.impl.reset();
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace caliber::runner
