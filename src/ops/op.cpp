// What every op shares: its byte count's default and its inputs drawn on the host.
#include "ops/op.h"

namespace caliber::ops {

std::uint64_t Op::bytes(const OpShape& s) const {
  std::uint64_t elements = 0;
  for (const TensorSpec& t : inputs(s)) {
    elements += static_cast<std::uint64_t>(t.rows) * static_cast<std::uint64_t>(t.cols);
  }
  for (const TensorSpec& t : outputs(s)) {
    elements += static_cast<std::uint64_t>(t.rows) * static_cast<std::uint64_t>(t.cols);
  }
  return elements * dtype_size_bytes(s.dtype);
}

std::vector<HostTensor> Op::make_inputs(const OpShape& s, std::uint64_t seed) const {
  const std::vector<TensorSpec> specs = inputs(s);
  const std::vector<InputDraw> draws = input_draws(s, seed);
  std::vector<HostTensor> t;
  t.reserve(specs.size());
  for (std::size_t k = 0; k < specs.size(); ++k) {
    t.emplace_back(specs[k].name, s.dtype, specs[k].rows, specs[k].cols);
    fill_uniform(t.back(), draws.at(k).seed, draws[k].lo, draws[k].hi);
  }
  return t;
}

}  // namespace caliber::ops
