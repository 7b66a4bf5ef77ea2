#include "measure/cache_policy.h"

#include <algorithm>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::measurement {

CacheSetup set_up_cache_policy(const Backend& backend, const Contract& contract, const MeasureOptions& options) {
  const std::uint64_t llc = backend.device().llc_bytes;
  CacheSetup setup;
  if (contract.cache == CachePolicy::cold) {
    setup.flush_bytes = backend.flush_bytes();
    if (setup.flush_bytes < 2 * llc) {
      throw ContractError(fmt::format("cache cold needs a flush of >= 2x the last-level cache ({} "
                                      "bytes); the backend flushes only {} bytes",
                                      2 * llc, setup.flush_bytes));
    }
  }
  if (contract.cache == CachePolicy::rotate) {
    if (options.rotation_copies < 2 || options.working_set_bytes == 0) {
      throw ContractError("cache rotate needs a workload that provides input copies "
                          "(rotation_copies >= 2) and states its working set in bytes");
    }
    const double covered =
        static_cast<double>(options.rotation_copies) * static_cast<double>(options.working_set_bytes);
    if (covered < 2.0 * static_cast<double>(llc)) {
      throw ContractError(fmt::format(
          "cache rotate needs >= 2x the last-level cache ({} bytes) of distinct inputs; the "
          "workload cycles through {} copies x {} bytes",
          2 * llc, options.rotation_copies, options.working_set_bytes));
    }
    setup.rotation_copies = options.rotation_copies;
  }
  return setup;
}

bool flushes_before_each_call(const Contract& contract) { return contract.cache == CachePolicy::cold; }

GraphFlush graph_flush(const Contract& contract) {
  if (contract.cache != CachePolicy::cold) return GraphFlush::none;
  return contract.graph_calls > 1 ? GraphFlush::captured_before_each_call : GraphFlush::before_each_replay;
}

}  // namespace caliber::measurement

namespace caliber {

std::size_t rotation_copies_needed(std::uint64_t working_set_bytes, std::uint64_t llc_bytes) {
  if (working_set_bytes == 0) return 2;
  const std::uint64_t needed = (2 * llc_bytes + working_set_bytes - 1) / working_set_bytes;
  return static_cast<std::size_t>(std::max<std::uint64_t>(2, needed));
}

}  // namespace caliber
