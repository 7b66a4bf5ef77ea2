// The cuda backend's input draw (Backend::fill_uniform) against the host's (ops::fill_uniform),
// ctest label gpu: the same bits for every dtype, across chunk boundaries, for every op's draws;
// and the op's inputs drawn on the device are what make_inputs builds on the host.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "ops/host_tensor.h"
#include "ops/op.h"
#include "ops/op_catalog.h"
#include "ops/uniform_draw.h"
#include "support/cuda_device.h"

namespace caliber {
namespace {

class DeviceInputDraw : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
    backend_ = open_backend(BackendKind::cuda, 0);
  }
  // The device's draw copied back into a tensor of the host's shape.
  ops::HostTensor drawn_on_device(DType d, std::int64_t rows, std::int64_t cols, std::uint64_t seed, float lo,
                                  float hi) {
    ops::HostTensor t("drawn", d, rows, cols);
    DeviceBuffer b(*backend_, t.bytes());
    EXPECT_TRUE(backend_->fill_uniform(b.get(), d, t.elements(), seed, lo, hi));
    backend_->copy_to_host(t.data(), b.get(), t.bytes());
    return t;
  }
  std::unique_ptr<Backend> backend_;
};

TEST_F(DeviceInputDraw, EqualsTheHostDrawBitForBit) {
  // Elements around the chunk boundaries (65536, 131072) and a tail, intervals of every op.
  const std::int64_t elements = 3 * static_cast<std::int64_t>(ops::kUniformChunk) + 123;
  const std::vector<std::pair<float, float>> intervals = {{-1.0f, 1.0f}, {0.5f, 1.5f}, {-4.0f, 4.0f}, {-0.75f, 1.25f}};
  for (DType d : all_dtypes()) {
    for (std::uint64_t seed : {0ull, 1ull, 0xfedcba9876543210ull}) {
      for (const auto& [lo, hi] : intervals) {
        ops::HostTensor host("host", d, 1, elements);
        ops::fill_uniform(host, seed, lo, hi);
        const ops::HostTensor device = drawn_on_device(d, 1, elements, seed, lo, hi);
        std::size_t differ = 0, first = 0;
        for (std::size_t i = 0; i < host.elements(); ++i) {
          if (std::memcmp(static_cast<const char*>(host.data()) + i * dtype_size_bytes(d),
                          static_cast<const char*>(device.data()) + i * dtype_size_bytes(d),
                          dtype_size_bytes(d)) != 0) {
            if (differ++ == 0) first = i;
          }
        }
        EXPECT_EQ(differ, 0u) << to_string(d) << " seed " << seed << " [" << lo << ", " << hi << "): first at "
                              << first << ", host " << host.get(first) << ", device " << device.get(first);
      }
    }
  }
}

TEST_F(DeviceInputDraw, EveryOpsInputsAreMakeInputsOnTheHost) {
  for (ops::OpType type : {ops::OpType::rmsnorm, ops::OpType::layernorm, ops::OpType::softmax, ops::OpType::gemm}) {
    const ops::Op& op = ops::op_for(type);
    const ops::OpShape s = ops::shipped_shape(type, DType::bf16, 70, 1999, 130);
    const auto host = op.make_inputs(s, 42);
    const std::vector<ops::InputDraw> draws = op.input_draws(s, 42);
    ASSERT_EQ(draws.size(), host.size());
    for (std::size_t k = 0; k < host.size(); ++k) {
      const ops::HostTensor device =
          drawn_on_device(s.dtype, host[k].rows(), host[k].cols(), draws[k].seed, draws[k].lo, draws[k].hi);
      EXPECT_EQ(std::memcmp(host[k].data(), device.data(), host[k].bytes()), 0)
          << ops::to_string(type) << " input " << host[k].name();
    }
  }
}

}  // namespace
}  // namespace caliber
