// The cuda backend's fp64 reference (ops::DeviceReferenceMath::reference_rows) against the host fp64
// reference of the same rows (ctest label gpu): every op in every dtype, on shapes with one row,
// widths that are not a multiple of 32, one element, long rows, and rows scattered over the
// tensor. Only the order of the norms' and softmax's reductions differs from the host's, so the
// two agree to a relative 1e-12; gemm sums in the host's order and agrees bit for bit. Then the
// comparison of an output with the reference on the device (ops::DeviceReferenceMath::compare_rows)
// against the host check of the same output: exact, with NaNs, and with a row off (the same
// verdict, the same numbers within what the references' last bits can move them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "caliber/backend.h"
#include "modules/builtins.h"
#include "ops/correctness.h"
#include "ops/device_reference.h"
#include "ops/op.h"
#include "ops/op_catalog.h"
#include "support/cuda_device.h"

namespace caliber {
namespace {

struct Shape {
  std::int64_t m, n, k;
};

std::vector<Shape> shapes_for(ops::OpType op) {
  if (op == ops::OpType::gemm) {
    return {{1, 1, 8}, {1, 1000, 77}, {65, 72, 7}, {300, 520, 1000}, {40, 4104, 4096}, {7, 33, 1}};
  }
  return {{1, 1, 0}, {1, 1000, 0}, {3, 31, 0}, {64, 4096, 0}, {300, 4544, 0}, {2, 8193, 0}, {5, 152064, 0}, {4096, 8, 0}};
}

ops::OpShape op_shape(ops::OpType op, DType d, const Shape& sh) {
  return ops::shipped_shape(op, d, sh.m, sh.n, sh.k);
}

// The row sets each shape is checked on: every row, and rows scattered over the tensor (the first,
// every 7th from the 3rd, the last), as a check of a sample draws them.
std::vector<std::vector<std::int64_t>> row_sets(std::int64_t m) {
  std::vector<std::int64_t> every(static_cast<std::size_t>(m));
  for (std::int64_t r = 0; r < m; ++r) every[static_cast<std::size_t>(r)] = r;
  if (m < 8) return {every};
  std::vector<std::int64_t> scattered = {0};
  for (std::int64_t r = 3; r < m - 1; r += 7) scattered.push_back(r);
  scattered.push_back(m - 1);
  return {every, scattered};
}

class DeviceReference : public ::testing::TestWithParam<ops::OpType> {
 protected:
  void SetUp() override {
    if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
    backend_ = open_backend(BackendKind::cuda, 0);
    math_ = ops::make_device_reference_math(*backend_);
    ASSERT_NE(math_, nullptr) << "the cuda module offers no device reference";
  }

  // The op's inputs copied to the device, and their addresses in input order.
  struct Uploaded {
    std::vector<DeviceBuffer> buffers;
    std::vector<const void*> pointers;
  };
  Uploaded upload(const std::vector<ops::HostTensor>& inputs) {
    Uploaded u;
    for (const ops::HostTensor& t : inputs) {
      u.buffers.emplace_back(*backend_, t.bytes());
      backend_->copy_to_device(u.buffers.back().get(), t.data(), t.bytes());
      u.pointers.push_back(u.buffers.back().get());
    }
    return u;
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<ops::DeviceReferenceMath> math_;
};

TEST_P(DeviceReference, EqualsTheHostReference) {
  const ops::OpType op_type = GetParam();
  const ops::Op& op = ops::op_for(op_type);
  // layernorm's outputs and gemm's are sums that can cancel to near zero (the bias against the
  // normalized x, products of both signs): there the last bits of the mean carry an absolute error,
  // so such an element is compared relative to its row's RMS. rmsnorm's and softmax's never cancel.
  const bool cancels = op_type == ops::OpType::layernorm || op_type == ops::OpType::gemm;
  for (DType d : all_dtypes()) {
    for (const Shape& sh : shapes_for(op_type)) {
      const ops::OpShape s = op_shape(op_type, d, sh);
      const auto inputs = op.make_inputs(s, 11);
      const Uploaded device = upload(inputs);
      const std::vector<const void*>& device_inputs = device.pointers;
      const ops::ReferenceProblem problem{std::string(ops::to_string(op_type)), d, s.m, s.n, s.k, s.eps};
      for (const std::vector<std::int64_t>& rows : row_sets(s.m)) {
        const std::string where = std::string(to_string(d)) + " " + s.describe() + ", " +
                                  std::to_string(rows.size()) + " rows";
        const auto device_ref = math_->reference_rows(problem, device_inputs, rows);
        ASSERT_TRUE(device_ref.has_value()) << where;
        ASSERT_EQ(device_ref->row_count, rows.size()) << where;
        ASSERT_EQ(device_ref->n, s.n) << where;
        const ops::Reference host(op, s, inputs, rows);
        std::vector<double> values(host.values().size());
        backend_->copy_to_host(values.data(), device_ref->values, values.size() * sizeof(double));
        const auto n = static_cast<std::size_t>(s.n);
        std::size_t off = 0, differ = 0;
        double worst = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          const double* h = host.values().data() + i * n;
          const double* v = values.data() + i * n;
          double sq = 0;
          for (std::size_t j = 0; j < n; ++j) sq += h[j] * h[j];
          const double rms = std::sqrt(sq / static_cast<double>(n));
          for (std::size_t j = 0; j < n; ++j) {
            ASSERT_TRUE(std::isfinite(v[j])) << where << ": row " << rows[i] << " column " << j;
            const double scale = cancels ? std::max(std::abs(h[j]), rms) : std::abs(h[j]);
            const double err = std::abs(v[j] - h[j]);
            if (err != 0) ++differ;
            if (err > 1e-12 * scale) ++off;
            if (scale > 0) worst = std::max(worst, err / scale);
          }
        }
        EXPECT_EQ(off, 0u) << where << ": " << off << " elements off by more than 1e-12 relative (worst " << worst
                           << ")";
        if (op_type == ops::OpType::gemm) EXPECT_EQ(differ, 0u) << where << ": not bit for bit (worst " << worst << ")";
        // The sum of squares a check divides by, summed on the device.
        EXPECT_NEAR(device_ref->sum_of_squares, host.sum_of_squares(), 1e-12 * host.sum_of_squares()) << where;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, DeviceReference, ::testing::ValuesIn(ops::all_op_types()),
                         [](const auto& info) { return std::string(ops::to_string(info.param)); });

// An output written from the host reference, rounded to the dtype, then spoiled in one of three
// ways: the comparison's sums on the device equal the host check's on the same output.
enum class Spoil { none, some_nan, one_row_off };

TEST_P(DeviceReference, ComparesLikeTheHostCheck) {
  const ops::OpType op_type = GetParam();
  const ops::Op& op = ops::op_for(op_type);
  for (DType d : all_dtypes()) {
    for (const Shape& sh : shapes_for(op_type)) {
      const ops::OpShape s = op_shape(op_type, d, sh);
      const auto inputs = op.make_inputs(s, 13);
      const Uploaded device = upload(inputs);
      const std::vector<const void*>& device_inputs = device.pointers;
      const ops::ReferenceProblem problem{std::string(ops::to_string(op_type)), d, s.m, s.n, s.k, s.eps};
      const std::vector<std::int64_t> rows = row_sets(s.m).back();
      const auto device_ref = math_->reference_rows(problem, device_inputs, rows);
      ASSERT_TRUE(device_ref.has_value());
      const ops::Reference host(op, s, inputs, rows);
      const ops::Tolerance tol = ops::tolerance_for(d);
      const auto n = static_cast<std::size_t>(s.n);
      for (Spoil spoil : {Spoil::none, Spoil::some_nan, Spoil::one_row_off}) {
        const std::string where = std::string(to_string(d)) + " " + s.describe() + ", spoil " +
                                  std::to_string(static_cast<int>(spoil));
        ops::HostTensor out("y", d, s.m, s.n);
        for (std::size_t i = 0; i < out.elements(); ++i) out.set(i, 7.0f);  // rows not checked
        for (std::size_t i = 0; i < rows.size(); ++i) {
          for (std::size_t j = 0; j < n; ++j) {
            double v = host.values()[i * n + j];
            if (spoil == Spoil::one_row_off && i == rows.size() / 2) v = v * 1.5 + 0.25;
            out.set(static_cast<std::size_t>(rows[i]) * n + j, static_cast<float>(v));
          }
        }
        if (spoil == Spoil::some_nan) {
          for (std::size_t i = 0; i < rows.size(); i += 3) out.set(static_cast<std::size_t>(rows[i]) * n, NAN);
        }
        DeviceBuffer out_device(*backend_, out.bytes());
        backend_->copy_to_device(out_device.get(), out.data(), out.bytes());
        const CorrectnessCheck on_host = ops::check_output(host, out, tol);
        const ops::RowComparison sums = math_->compare_rows(
            *device_ref, out_device.get(), d, tol.rtol,
            ops::absolute_bound(tol, device_ref->sum_of_squares, rows.size() * n));
        const CorrectnessCheck on_device = ops::check_from_sums(sums, device_ref->sum_of_squares,
                                                                static_cast<std::int64_t>(rows.size()), s.m, tol);
        EXPECT_EQ(on_device.nonfinite, on_host.nonfinite) << where;
        EXPECT_EQ(ops::passed(on_device), ops::passed(on_host)) << where << ": " << ops::failure_reason(on_host);
        EXPECT_EQ(on_device.checked_rows, on_host.checked_rows) << where;
        EXPECT_EQ(on_device.total_rows, on_host.total_rows) << where;
        // The two references differ by up to 1e-12 of the row's scale (the test above), which is
        // far below a dtype's rounding but not below an fp32 output's own error: each difference
        // out - ref moves by that much. So rel_fro_error (already relative to the reference) may
        // move by 1e-12, and max_scaled_error by 1e-12 of the reference over the bound's
        // absolute term (atol rms(ref)), at most 1e-12 / atol.
        const double scaled_slack = 1e-12 / std::max(tol.atol, 1e-12);
        for (const auto& [name, a, b, slack] :
             {std::tuple{"rel_fro_error", on_device.rel_fro_error, on_host.rel_fro_error, 1e-12},
              std::tuple{"max_scaled_error", on_device.max_scaled_error, on_host.max_scaled_error, scaled_slack}}) {
          if (std::isinf(b)) {
            EXPECT_TRUE(std::isinf(a)) << where << ": " << name << " " << a;
          } else {
            EXPECT_NEAR(a, b, slack + 1e-11 * std::abs(b)) << where << ": " << name;  // + the bound's own bits
          }
        }
        if (spoil == Spoil::none) EXPECT_TRUE(ops::passed(on_device)) << where << ": " << ops::failure_reason(on_device);
        if (spoil != Spoil::none) EXPECT_FALSE(ops::passed(on_device)) << where;
      }
    }
  }
}

TEST(DeviceReferenceRefusal, AnOpTheDeviceDoesNotKnowIsLeftToTheHost) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  auto backend = open_backend(BackendKind::cuda, 0);
  DeviceBuffer x(*backend, 64 * sizeof(float));
  const ops::ReferenceProblem problem{"conv2d", DType::fp32, 4, 16, 0, 0.0};
  const auto math = ops::make_device_reference_math(*backend);
  ASSERT_NE(math, nullptr);
  EXPECT_FALSE(math->reference_rows(problem, {x.get()}, {0, 1}).has_value());
}

}  // namespace
}  // namespace caliber
