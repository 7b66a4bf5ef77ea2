// The ops by type, and what every op shares (its byte count).
#include "ops/op.h"

namespace caliber::ops {

const Op& rmsnorm_op();
const Op& layernorm_op();
const Op& softmax_op();
const Op& gemm_op();

const Op& op_for(OpType type) {
  switch (type) {
    case OpType::rmsnorm: return rmsnorm_op();
    case OpType::layernorm: return layernorm_op();
    case OpType::softmax: return softmax_op();
    case OpType::gemm: return gemm_op();
  }
  return rmsnorm_op();
}

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

namespace caliber::ops {

void Op::reference_rows(const OpShape& s, const std::vector<HostTensor>& inputs, const std::int64_t* rows,
                        std::size_t count, double* out) const {
  std::vector<double> scratch;
  for (std::size_t i = 0; i < count; ++i) {
    reference_row(s, inputs, rows[i], out + i * static_cast<std::size_t>(s.n), scratch);
  }
}

}  // namespace caliber::ops
