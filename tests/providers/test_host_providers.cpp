// The host providers against the fp64 reference: every op and dtype, on shapes that are not
// multiples of anything (odd widths, a partial 4-row gemm block, a partial 256-column panel).
#include <gtest/gtest.h>

#include "caliber/backend.h"
#include "ops/correctness.h"
#include "ops/op_catalog.h"
#include "providers/provider.h"
#include "modules/builtins.h"

namespace caliber::providers {
namespace {

struct Case {
  ops::OpType op;
  std::int64_t m, n, k;
};

void expect_correct(const std::string& name, const Case& c, DType d) {
  auto backend = open_backend(BackendKind::host, 0);
  const ops::OpShape s = ops::shipped_shape(c.op, d, c.m, c.n, c.k);
  const ops::Op& op = ops::op_for(c.op);
  auto p = make_builtin_provider(BackendKind::host, c.op, name);
  ASSERT_TRUE(p) << name;
  EXPECT_EQ(p->name(), name);
  ASSERT_TRUE(p->supports(s).supported()) << p->supports(s).reason;
  const auto inputs = op.make_inputs(s, 11);
  std::vector<DeviceBuffer> bufs;
  OpBuffers b;
  for (const auto& t : inputs) {
    bufs.emplace_back(*backend, t.bytes());
    backend->copy_to_device(bufs.back().get(), t.data(), t.bytes());
    b.inputs.push_back(bufs.back().get());
  }
  ops::HostTensor out("y", d, s.m, s.n);
  DeviceBuffer ob(*backend, out.bytes());
  backend->fill_bytes(ob.get(), 0xFF, ob.bytes());
  b.output = ob.get();
  p->prepare(s, *backend);
  p->run(s, b, backend->stream());
  backend->copy_to_host(out.data(), ob.get(), out.bytes());
  const ops::Reference ref(op, s, inputs);
  const CorrectnessCheck check = ops::check_output(ref, out, ops::tolerance_for(d));
  EXPECT_TRUE(ops::passed(check)) << name << " " << ops::to_string(c.op) << " " << to_string(d) << " " << s.describe()
                                  << ": " << ops::failure_reason(check);
  p->release();
}

TEST(HostProviders, EveryOpAndDtypeMatchesTheReference) {
  const std::vector<Case> cases = {
      {ops::OpType::rmsnorm, 7, 1, 0},     {ops::OpType::rmsnorm, 33, 1027, 0},
      {ops::OpType::layernorm, 5, 3, 0},   {ops::OpType::layernorm, 17, 513, 0},
      {ops::OpType::softmax, 9, 1, 0},     {ops::OpType::softmax, 21, 999, 0},
      {ops::OpType::gemm, 1, 1, 1},        {ops::OpType::gemm, 7, 300, 45},
  };
  for (const std::string name : {"caliber", "naive"}) {
    for (const Case& c : cases) {
      for (DType d : all_dtypes()) expect_correct(name, c, d);
    }
  }
}

TEST(HostProviders, NaiveGemmDeclinesHugeShapesAsSkipped) {
  auto p = make_builtin_provider(BackendKind::host, ops::OpType::gemm, "naive");
  const ops::OpShape s = ops::shipped_shape(ops::OpType::gemm, DType::fp32, 4096, 4096, 4096);
  const Support sup = p->supports(s);
  EXPECT_EQ(sup.kind, Support::Kind::skipped);
  EXPECT_NE(sup.reason.find("2^31"), std::string::npos) << sup.reason;
}

TEST(HostProviders, UnknownBuiltinIsNull) {
  EXPECT_EQ(make_builtin_provider(BackendKind::host, ops::OpType::gemm, "cublas"), nullptr);
  EXPECT_EQ(builtin_provider_names(BackendKind::host, ops::OpType::softmax),
            (std::vector<std::string>{"caliber", "naive"}));
}

}  // namespace
}  // namespace caliber::providers
