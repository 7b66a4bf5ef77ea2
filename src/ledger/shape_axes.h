// Sweeps typed as axes (`caliber ledger manual --axis m=1,7,4096 --axis n=128,5504`): the
// product of every axis's values, each combination one shape text ("m=1,n=128"), the first axis
// varying slowest. With shapes given as well, each shape gets every combination (an axis may not
// name an arg a shape already gives).
#pragma once

#include <string>
#include <vector>

namespace caliber::ledger {

// At most this many shapes from one command: a typo in a sweep must not write a million rows.
inline constexpr std::size_t kMaxSweepShapes = 100000;

// The shape texts of `shapes` (NAME=VALUE,...) crossed with `axes` (NAME=V1,V2,...). Throws
// UsageError naming --axis for an axis without a name or values, an axis named twice, an axis
// naming an arg of a shape, or a product beyond kMaxSweepShapes. No axes: `shapes` as given.
std::vector<std::string> sweep_shape_texts(const std::vector<std::string>& shapes, const std::vector<std::string>& axes);

}  // namespace caliber::ledger
