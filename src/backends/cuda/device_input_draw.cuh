// The ops' input draws on the device (Backend::fill_draw): the bits the host's draw writes
// (src/ops/input_draw_value.h), without drawing on the host and copying. Internal to the cuda
// backend.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "caliber/dtype.h"
#include "caliber/input_draw.h"

namespace caliber::cuda {

// Enqueues the draw of `elements` values of `element` at `dst` on `stream`, without waiting for
// it (capturable; ordered before what `stream` runs next). A uniform draw with a = b = NaN writes
// NaN: the poison. False, with nothing enqueued, for the draws only the host makes (a
// permutation, a file's values).
bool draw_on_device(void* dst, ElementType element, std::size_t elements, const DrawParams& draw, cudaStream_t stream);

}  // namespace caliber::cuda
