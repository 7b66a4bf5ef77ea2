// The ops' uniform input draw on the device (Backend::fill_uniform): the bits the host's draw
// writes (src/ops/uniform_draw.h), without drawing on the host and copying. Internal to the cuda
// backend.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "caliber/dtype.h"

namespace caliber::cuda {

// Enqueues the draw of `elements` values of `dtype` at `dst` on `stream`, without waiting for it
// (capturable; ordered before what `stream` runs next). lo = hi = NaN writes NaN: the poison.
void draw_uniform_on_device(void* dst, DType dtype, std::size_t elements, std::uint64_t seed, float lo, float hi,
                            cudaStream_t stream);

}  // namespace caliber::cuda
