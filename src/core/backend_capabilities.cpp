// What a Backend (include/caliber/backend.h) cannot do unless it says otherwise: capture graphs,
// keep kernel activity tracing on, read device telemetry.
#include <fmt/format.h>

#include "caliber/backend.h"
#include "caliber/errors.h"

namespace caliber {

std::unique_ptr<GraphExec> Backend::capture_graph(const std::function<void()>&) {
  throw ContractError(fmt::format("the {} backend cannot capture graphs", to_string(kind())));
}

std::unique_ptr<ActivityTracing> Backend::keep_activity_tracing_on() {
  throw ContractError(fmt::format("the {} backend has no kernel activity tracing", to_string(kind())));
}

TelemetryReader* Backend::telemetry(std::string* why_unavailable) {
  if (why_unavailable) {
    *why_unavailable = fmt::format("the {} backend has no device telemetry", to_string(kind()));
  }
  return nullptr;
}

}  // namespace caliber
