// The ops' uniform input draw on the device (Backend::fill_uniform): the bits the host's draw
// writes (src/ops/uniform_draw.h), without drawing on the host and copying. Internal to the cuda
// backend.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "caliber/dtype.h"

namespace caliber::cuda {

// Writes `elements` values of `dtype` at `dst` on `stream` and synchronizes it.
void draw_uniform_on_device(void* dst, DType dtype, std::size_t elements, std::uint64_t seed, float lo, float hi,
                            cudaStream_t stream);

}  // namespace caliber::cuda
