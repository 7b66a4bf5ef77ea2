// The canary of a frozen campaign (docs/campaigns.md, "The canary"): one cell, run by the
// manifest's caliber binary, that must pass before any shard starts.
#pragma once

#include <iosfwd>
#include <string>

#include "campaign/campaign_manifest.h"

namespace caliber::campaign {

// Runs the canary in its own directory under the campaign (never part of its results) and says
// on `err` whether it passed. `device_server`: the canary device's server (its run is measured
// there, and the server's start, opening the device, is paid before the shards); "" for a worker
// of the canary's own.
bool run_canary(const Manifest& m, const std::string& executable, std::ostream& err,
                const std::string& device_server = "");

}  // namespace caliber::campaign
