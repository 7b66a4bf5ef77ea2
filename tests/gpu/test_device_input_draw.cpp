// The cuda backend's input draws (Backend::fill_draw) against the host's (ops::fill_draw), ctest
// label gpu: the same bits for every element type and draw (uniform, normal, integers, ties,
// masks, special values), across chunk boundaries, for every op's draws; the op's inputs drawn on
// the device are what make_inputs builds on the host; a permutation is the host's to draw.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "ops/host_draw.h"
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
  ops::HostTensor drawn_on_device(ElementType e, std::int64_t rows, std::int64_t cols, const DrawParams& d) {
    ops::HostTensor t("drawn", e, rows, cols);
    DeviceBuffer b(*backend_, t.bytes());
    EXPECT_TRUE(backend_->fill_draw(b.get(), e, t.elements(), d));
    backend_->copy_to_host(t.data(), b.get(), t.bytes());
    return t;
  }
  // Elements whose bytes differ, and the first.
  static std::string differences(const ops::HostTensor& host, const ops::HostTensor& device) {
    const std::size_t size = element_size_bytes(host.element());
    std::size_t differ = 0, first = 0;
    for (std::size_t i = 0; i < host.elements(); ++i) {
      if (std::memcmp(static_cast<const char*>(host.data()) + i * size, static_cast<const char*>(device.data()) + i * size,
                      size) != 0 &&
          differ++ == 0) {
        first = i;
      }
    }
    if (differ == 0) return "";
    return std::to_string(differ) + " differ, first at " + std::to_string(first) + ": host " +
           std::to_string(host.get(first)) + ", device " + std::to_string(device.get(first));
  }
  std::unique_ptr<Backend> backend_;
};

std::vector<DrawParams> draws_to_compare() {
  std::vector<DrawParams> out;
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{{-1, 1}, {0.5, 1.5}, {-4, 4}, {-0.75, 1.25}}) {
    DrawParams d;
    d.a = lo;
    d.b = hi;
    out.push_back(d);
  }
  DrawParams normal;
  normal.kind = DrawKind::normal;
  normal.a = 0.25;
  normal.b = 3;
  out.push_back(normal);
  DrawParams integers;
  integers.kind = DrawKind::integers;
  integers.a = -100;
  integers.b = 100;
  out.push_back(integers);
  DrawParams mixed;  // every modifier
  mixed.tie_fraction = 0.3;
  mixed.tie_levels = 5;
  mixed.mask_fraction = 0.1;
  mixed.mask_value = -INFINITY;
  mixed.special_fraction = 0.05;
  out.push_back(mixed);
  normal.special_fraction = 0.2;
  out.push_back(normal);
  return out;
}

TEST_F(DeviceInputDraw, EqualsTheHostDrawBitForBitInEveryElementType) {
  // Elements around the chunk boundaries (65536, 131072) and a tail.
  const std::int64_t elements = 3 * static_cast<std::int64_t>(ops::kUniformChunk) + 123;
  for (ElementType e : all_element_types()) {
    for (std::uint64_t seed : {0ull, 0xfedcba9876543210ull}) {
      for (DrawParams d : draws_to_compare()) {
        d.seed = seed;
        ops::HostTensor host("host", e, 1, elements);
        ops::fill_draw(host, ops::InputDraw{d, ""});
        const std::string diff = differences(host, drawn_on_device(e, 1, elements, d));
        EXPECT_EQ(diff, "") << to_string(e) << " seed " << seed << " kind " << static_cast<int>(d.kind) << " a " << d.a;
      }
    }
  }
}

TEST_F(DeviceInputDraw, APermutationIsTheHostsToDraw) {
  DrawParams d;
  d.kind = DrawKind::permutation;
  DeviceBuffer b(*backend_, 64 * sizeof(std::int32_t));
  EXPECT_FALSE(backend_->fill_draw(b.get(), ElementType::int32, 64, d));
}

TEST_F(DeviceInputDraw, EveryOpsInputsAreMakeInputsOnTheHost) {
  for (ops::OpType type : {ops::OpType::rmsnorm, ops::OpType::layernorm, ops::OpType::softmax, ops::OpType::gemm}) {
    const ops::Op& op = ops::op_for(type);
    const ops::OpShape s = ops::shipped_shape(type, DType::bf16, 70, 1999, 130);
    const auto host = op.make_inputs(s, 42);
    const std::vector<ops::InputDraw> draws = op.input_draws(s, 42);
    ASSERT_EQ(draws.size(), host.size());
    for (std::size_t k = 0; k < host.size(); ++k) {
      const ops::HostTensor device = drawn_on_device(host[k].element(), host[k].rows(), host[k].cols(), draws[k].params);
      EXPECT_EQ(differences(host[k], device), "") << ops::to_string(type) << " input " << host[k].name();
    }
  }
}

}  // namespace
}  // namespace caliber
