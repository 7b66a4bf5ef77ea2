// Example: measuring your own kernel with caliber's C++ API.
//
// The callable launches one call on the stream caliber hands it (LaunchContext::stream);
// caliber owns warmup, the schedule, the cache policy and the statistics, and returns a Result
// that carries the contract. The callable's buffers are declared (MeasureOptions::buffers), so
// caliber verifies its output after timing as well as before, and watches its inputs
// (docs/integrity.md): Result::integrity says what was verified.
#pragma once

#include <cstddef>

#include <caliber/caliber.h>

namespace example {

// z = a x + y over n floats, on the backend's device. Checks the output once against a reference
// and throws caliber::DeviceError when it is wrong; caliber then checks every timed call's output
// against that first one.
caliber::Result measure_saxpy(caliber::Backend& backend, std::size_t n,
                              const caliber::Contract& contract);

#ifdef CALIBER_EXAMPLE_WITH_CUDA
caliber::Result measure_saxpy_cuda(caliber::Backend& backend, std::size_t n,
                                   const caliber::Contract& contract);
#endif

}  // namespace example
