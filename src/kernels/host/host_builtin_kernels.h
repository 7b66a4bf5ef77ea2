// Built-in micro-kernels of the host backend.
#pragma once

#include <memory>
#include <string_view>

#include "kernels/workload.h"

namespace caliber::host {

std::vector<bench::KernelInfo> builtin_kernels();
// Uniform in +-[0.5, 1.5): random, never zero (the same generator as the cuda backend).
void fill_random(float* x, std::size_t n, std::uint64_t seed);
std::unique_ptr<bench::Workload> make_builtin_workload(std::string_view kernel,
                                                       std::uint64_t size_bytes,
                                                       std::size_t rotation_copies,
                                                       std::uint64_t seed);

}  // namespace caliber::host
