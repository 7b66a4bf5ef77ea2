// Device identity: what a number was measured on.
#pragma once

#include <cstdint>
#include <string>

#include "caliber/contract.h"

namespace caliber {

struct DeviceInfo {
  BackendKind backend = BackendKind::host;
  int index = 0;
  std::string name;             // "NVIDIA H200", or the CPU model name
  std::string arch;             // "sm_90", or the host machine ("x86_64")
  std::string uuid;             // GPU UUID; empty on the host
  int multiprocessors = 0;      // streaming multiprocessors, or logical CPUs
  std::uint64_t llc_bytes = 0;  // last-level cache (L2 on a GPU, the outermost CPU cache)
  std::string llc_source;       // where llc_bytes came from; starts with "fallback" when guessed
  std::uint64_t memory_bytes = 0;
  int sm_clock_max_mhz = 0;     // maximum SM (or CPU) clock; 0 when unknown
  int mem_clock_max_mhz = 0;    // maximum memory clock; 0 when unknown
  int memory_bus_width_bits = 0;  // global memory bus width in bits (GPUs); 0 when unknown
  std::string driver_version;   // CUDA driver version, or the host kernel release
  std::string runtime_version;  // CUDA runtime version, or the host C library
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

}  // namespace caliber
