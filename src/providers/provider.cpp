// A provider's defaults (providers/provider.h).
#include "providers/provider.h"

#include <fmt/format.h>

namespace caliber::providers {

void Provider::pin_config(const std::optional<std::string>& key) {
  if (key) throw ConfigRefused(fmt::format("{} chooses no configuration, so '{}' cannot be pinned", name(), *key));
}

}  // namespace caliber::providers
