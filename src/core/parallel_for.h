// A small persistent thread pool (std::thread, no OpenMP: the caliber binary must need nothing
// beyond glibc and, with the cuda backend, CUDA libraries).
#pragma once

#include <cstdint>
#include <functional>

namespace caliber {

// Threads parallel_for uses: std::thread::hardware_concurrency(), at least 1.
int parallel_threads();

// Splits [0, n) into at most parallel_threads() contiguous chunks of at least `grain` items and
// runs body(begin, end) on each, the calling thread included; returns when all are done. The
// first exception a chunk throws is rethrown here. Calls from several threads are serialized; a
// call from inside a body runs serially on the calling thread.
void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body);

}  // namespace caliber
