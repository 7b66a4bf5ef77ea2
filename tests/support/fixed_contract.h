// A cuda contract with a fixed sample count: the starting point of most engine and GPU tests.
#pragma once

#include <cstdint>

#include "caliber/contract.h"

namespace caliber::testing_support {

inline Contract fixed_cuda_contract(Schedule s, CachePolicy cache, std::int64_t n, std::int64_t warmup) {
  Contract c = default_contract(BackendKind::cuda);
  c.schedule = s;
  c.cache = cache;
  c.warmup = warmup;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = n;
  if (s == Schedule::pipelined) c.statistic = parse_statistic("mean");
  return c;
}

}  // namespace caliber::testing_support
