// The providers of a run's baseline matrix, bound once to their implementations: one provider
// object serves every shape of the run (docs/runner.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "providers/provider.h"
#include "runner/run_plan.h"

namespace caliber::runner {

// A matrix provider bound to an implementation, or the reason it has none.
struct BoundProvider {
  const MatrixProvider* entry = nullptr;
  std::unique_ptr<providers::Provider> impl;
  std::optional<std::string> not_configured;  // disabled, unknown built-in, unavailable here
  // The shape its implementation is prepared for (a ShapeRunner's own token), or nullptr when
  // released: shapes whose untimed calls share a trace prepare it again before they are timed.
  const void* prepared_for = nullptr;
};

// Binds every provider of the matrix for `backend`. Never throws for one provider: a provider
// that cannot be bound is recorded as not_configured with the reason.
std::vector<BoundProvider> bind_providers(const RunPlan& plan, BackendKind backend);

}  // namespace caliber::runner
