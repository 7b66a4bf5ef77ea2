// Plugin providers of ABI v2 (include/caliber/plugin_abi.h, docs/user-ops.md): the example op's
// plugin loaded and run on host buffers, and the loader's refusals, each with its exact words.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/errors.h"
#include "caliber/plugin_abi.h"
#include "ops/op_catalog.h"
#include "providers/plugin_provider.h"

namespace caliber::providers {
namespace {

const std::string kExample = std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_add_rmsnorm.so";
const std::string kTestPlugin = CALIBER_TEST_USER_OP_PLUGIN;

const ops::DescribedOp& add_rmsnorm() {
  return ops::register_op_description(std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/add_rmsnorm.op.yaml");
}

ops::OpShape shape(double eps) {
  return add_rmsnorm().parse_shape(DType::fp32, "row_major", {{"m", 2}, {"n", 3}, {"eps", eps}}, "", 0, "args");
}

TEST(PluginProviderV2, TheExampleRunsOnHostBuffersAndWritesBothOutputs) {
  const PluginOp op{add_rmsnorm()};
  EXPECT_EQ(op.name(), "add_rmsnorm");
  const auto p = load_plugin_provider(kExample, "add_rmsnorm_fused", op, BackendKind::host);
  ASSERT_FALSE(p->unavailable().has_value()) << *p->unavailable();
  EXPECT_EQ(p->name(), kExample + ":add_rmsnorm_fused");
  EXPECT_NE(p->detail(shape(1e-6)).find("fused: add and sum of squares in one pass"), std::string::npos);
  EXPECT_TRUE(p->supports(shape(1e-6)).supported());
  const Support no = p->supports(shape(0));
  EXPECT_FALSE(no.supported());
  EXPECT_EQ(no.reason, "eps must be > 0 (got 0)");

  const ops::OpShape s = shape(0.5);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6}, r = {1, 1, 1, -1, -1, -1}, w = {1, 2, 0.5f};
  std::vector<float> y(6, NAN), h(6, NAN);
  OpBuffers b;
  b.inputs = {x.data(), r.data(), w.data()};
  b.outputs = {y.data(), h.data()};
  b.output = y.data();
  p->run(s, b, nullptr);
  EXPECT_EQ(h, (std::vector<float>{2, 3, 4, 3, 4, 5}));
  const float rstd0 = 1.0f / std::sqrt((4.0f + 9.0f + 16.0f) / 3.0f + 0.5f);
  EXPECT_FLOAT_EQ(y[0], 2.0f * rstd0 * 1.0f);
  EXPECT_FLOAT_EQ(y[2], 4.0f * rstd0 * 0.5f);
  // On the cuda backend the host plugin is unavailable, with the reason.
  const auto on_cuda = load_plugin_provider(kExample, "add_rmsnorm_fused", op, BackendKind::cuda);
  ASSERT_TRUE(on_cuda->unavailable().has_value());
  EXPECT_NE(on_cuda->unavailable()->find("is for the host backend; this run uses cuda"), std::string::npos);
}

std::string problem_of(const std::string& symbol, bool as_reference = false) {
  void* lib = ::dlopen(kTestPlugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(lib, nullptr) << ::dlerror();
  void* entry = ::dlsym(lib, symbol.c_str());
  EXPECT_NE(entry, nullptr) << symbol;
  return plugin_entry_problem(entry, PluginOp{add_rmsnorm()}, as_reference);
}

TEST(PluginProviderV2, TheLoaderRefusesWhatIsNotAV2ProviderOfTheOp) {
  EXPECT_EQ(problem_of("add_rmsnorm_test_wrong_h"), "");
  EXPECT_EQ(problem_of("add_rmsnorm_test_v1"),
            "was built for plugin ABI version 1; this caliber speaks version 2 for op add_rmsnorm (a described op: "
            "docs/user-ops.md)");
  EXPECT_EQ(problem_of("add_rmsnorm_test_short_struct"),
            "has provider struct_size " + std::to_string(sizeof(caliber_provider_v2) - sizeof(void*)) +
                ", not sizeof(caliber_provider_v2) = " + std::to_string(sizeof(caliber_provider_v2)));
  // A cuda plugin loads as a provider (its cells are not_configured on the host) and as a
  // reference (the worker refuses it when the run's backend is not cuda: test_op_description.cpp).
  EXPECT_EQ(problem_of("add_rmsnorm_test_cuda_backend"), "");
  EXPECT_EQ(problem_of("add_rmsnorm_test_cuda_backend", true), "");
  // ... unless the run's backend is known and is not cuda.
  void* lib = ::dlopen(kTestPlugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr);
  void* cuda_entry = ::dlsym(lib, "add_rmsnorm_test_cuda_backend");
  const PluginOp op{add_rmsnorm()};
  EXPECT_EQ(plugin_entry_problem(cuda_entry, op, true, BackendKind::host),
            "is a cuda reference and this run's backend is host: a cuda reference runs on the cuda backend only");
  EXPECT_EQ(plugin_entry_problem(cuda_entry, op, true, BackendKind::cuda), "");
  EXPECT_EQ(plugin_entry_problem(cuda_entry, op, false, BackendKind::host), "");  // a provider: not_configured there
  EXPECT_EQ(problem_of("add_rmsnorm_test_v1", true).rfind("was built for plugin ABI version 1", 0), 0u);
  try {
    load_plugin_provider(kTestPlugin, "add_rmsnorm_test_v1", add_rmsnorm(),
                         BackendKind::host);
    FAIL() << "loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(kTestPlugin + ":add_rmsnorm_test_v1 was built for plugin ABI version 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace caliber::providers
