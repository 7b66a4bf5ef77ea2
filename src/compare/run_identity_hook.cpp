#include "compare/run_identity_hook.h"

#include <fmt/format.h>

namespace caliber::compare {

std::vector<IdentityMismatch> check_run_identity(const std::string&, const std::string&) { return {}; }

std::string format_identity_mismatch(const IdentityMismatch& m) {
  return fmt::format("!!! [caliber] {}: A={}, B={}", m.field, m.baseline, m.current);
}

}  // namespace caliber::compare
