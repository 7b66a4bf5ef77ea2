// A built-in micro-kernel ready to be measured: it owns its buffers (random inputs, never zeros),
// launches one call, and can check its own output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/backend.h"
#include "caliber/integrity.h"
#include "caliber/params.h"
#include "integrity/subject.h"

namespace caliber::bench {

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void launch(const LaunchContext& ctx) = 0;
  // Fill every output copy with NaN, so an unwritten element fails verify().
  virtual void poison_outputs() = 0;
  // Compares the output of input copy 0 with the reference; empty when every element matches.
  virtual std::string verify() = 0;
  // For the integrity checks (docs/integrity.md): every input copy (checksummed) and the output
  // of input copy 0 (scanned for the poison after each verified call). Empty: not exposed.
  virtual DeclaredBuffers declared_buffers() { return {}; }

  std::string name;
  Params params;  // Result::params
  std::uint64_t working_set_bytes = 0;  // bytes one call reads plus writes
  std::size_t rotation_copies = 1;      // input/output copies allocated
};

// Elements of the one-block `tiny` kernel (both backends).
inline constexpr std::size_t kTinyElements = 256;

// Bytes of one 4096 x 4096 bf16 matrix of the cuda backend's gemm_bf16.
inline constexpr std::uint64_t kGemmBytesPerMatrix = 4096ull * 4096ull * 2ull;

// Bytes one call of a built-in kernel reads plus writes: 2 x size for copy/scale/two_streams,
// 3 matrices for gemm_bf16, 2 x 1 KiB for tiny; needed to size the input rotation before anything
// is allocated.
std::uint64_t builtin_working_set_bytes(std::string_view kernel, std::uint64_t size_bytes);

struct KernelInfo {
  std::string name;
  std::string description;
  bool in_all = true;  // part of --kernel all (self-tests and heavy probes run only when named)
};

// A workload as the integrity layer's subject (src/integrity/subject.h): `launches`
// launches per call, the workload's own poison and reference check, its declared buffers.
integrity::Subject checked_subject(Workload& workload, std::int64_t launches = 1);

}  // namespace caliber::bench
