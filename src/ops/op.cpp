// What every op shares: its byte count's default and its inputs drawn on the host.
#include "ops/op.h"

namespace caliber::ops {

std::uint64_t Op::bytes(const OpShape& s) const {
  std::uint64_t bytes = 0;
  for (const TensorSpec& t : inputs(s)) bytes += t.bytes();
  for (const TensorSpec& t : outputs(s)) bytes += t.bytes();
  return bytes;
}

std::vector<HostTensor> Op::make_inputs(const OpShape& s, std::uint64_t seed) const {
  const std::vector<TensorSpec> specs = inputs(s);
  const std::vector<InputDraw> draws = input_draws(s, seed);
  std::vector<HostTensor> t;
  t.reserve(specs.size());
  for (std::size_t k = 0; k < specs.size(); ++k) {
    t.emplace_back(specs[k].name, specs[k].element, specs[k].rows, specs[k].cols);
    fill_draw(t.back(), draws.at(k));
  }
  return t;
}

}  // namespace caliber::ops
