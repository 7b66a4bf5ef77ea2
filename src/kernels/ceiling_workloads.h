// The work `caliber calibrate` times to find a device's ceilings: a large copy (achievable memory
// bandwidth, bytes read + written) and a large matrix multiply on random data (achievable flop
// rate). One implementation per backend (src/kernels/host, src/kernels/cuda), reached through the
// backend's module (src/modules/builtins.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kernels/workload.h"
#include "caliber/backend.h"

namespace caliber::calibrate {

// A workload, or why this build or machine cannot run it (never a substitute measurement).
struct CeilingWorkload {
  std::unique_ptr<bench::Workload> workload;
  std::string method;       // what one call does, in words (stored with the ceiling)
  std::uint64_t work_per_call = 0;  // bytes read + written, or flops
  std::string unavailable;  // non-empty: why there is no workload
};

}  // namespace caliber::calibrate
