// The cuda backend's built-in micro-kernels for caliber bench (defined in cuda_builtin_kernels.cu),
// declared without CUDA types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "kernels/workload.h"

namespace caliber::cuda {

std::vector<bench::KernelInfo> builtin_kernels();
std::unique_ptr<bench::Workload> make_builtin_workload(Backend& backend, std::string_view kernel,
                                                       std::uint64_t size_bytes,
                                                       std::size_t rotation_copies,
                                                       std::uint64_t seed);

}  // namespace caliber::cuda
