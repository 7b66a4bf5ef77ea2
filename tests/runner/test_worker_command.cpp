// How caliber run starts its worker: caliber's own executable, or a Python worker when the matrix
// names Python providers (runner/worker_command.h); and the entries such a worker registers
// (providers/registered_entries.h).
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "core/subprocess.h"
#include "ledger/importers.h"
#include "providers/plugin_provider.h"
#include "providers/registered_entries.h"
#include "runner/result_rows.h"
#include "runner/worker_command.h"
#include "support/cli_run.h"
#include "io/shape_ledger_json.h"

namespace caliber::runner {
namespace {

using testing_support::fresh_dir;
using testing_support::write_text;

RunPlan plan_with(const std::string& dir, const std::string& providers) {
  ledger::RowTemplate t;
  t.op = ops::OpType::softmax;
  write_shape_ledger(dir + "/shape_ledger.jsonl",
                     {ledger::make_row(t, DType::fp32, {{"m", 2}, {"n", 8}}, Stage::decode, std::nullopt,
                                       {SourceKind::manual, "test", ""}, "")});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: softmax\nop_type: softmax\ndtype: [fp32]\nreference_provider: naive\n"
             "layout_contract: row_major\nproviders:\n"
             "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n" + providers);
  RunOptions o;
  o.op = "softmax";
  o.shape_ledger = dir + "/shape_ledger.jsonl";
  o.baseline_matrix = dir + "/baseline_matrix.yaml";
  o.out = dir + "/out";
  return make_run_plan(o);
}

struct EnvironmentGuard {
  explicit EnvironmentGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
  }
  ~EnvironmentGuard() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  const char* name_;
  std::optional<std::string> old_;
};

TEST(WorkerCommand, WithoutPythonProvidersTheWorkerIsCalibersOwnExecutable) {
  const RunPlan plan = plan_with(fresh_dir("worker_command_native"), "");
  EXPECT_TRUE(python_provider_entries(plan).empty());
  const WorkerCommand c = worker_command(plan);
  EXPECT_FALSE(c.python);
  EXPECT_EQ(c.executable, self_executable());
  EXPECT_EQ(c.arguments, std::vector<std::string>({"__run-worker"}));
  EXPECT_TRUE(c.environment.empty());
}

TEST(WorkerCommand, PythonProvidersRunInAPythonWorkerThatRegistersEachOfThem) {
  const std::string dir = fresh_dir("worker_command_python");
  const RunPlan plan = plan_with(dir,
                                 "  mine: {enabled: true, entrypoint: \"python:p/mine.py:Fast\", provider: python}\n"
                                 "  off: {enabled: false, entrypoint: \"python:p/off.py:Slow\", provider: python, skip_reason: later}\n");
  const std::string file = (std::filesystem::path(dir) / "p" / "mine.py").lexically_normal().string();
  EXPECT_EQ(python_provider_entries(plan), std::vector<std::string>({file + ":Fast"}));  // not the disabled one
  EnvironmentGuard python("CALIBER_PYTHON");
  ::setenv("CALIBER_PYTHON", "/bin/sh", 1);  // any executable: the command is only built here
  const WorkerCommand c = worker_command(plan);
  EXPECT_TRUE(c.python);
  EXPECT_EQ(c.executable, "/bin/sh");
  EXPECT_EQ(c.arguments, std::vector<std::string>({"-m", "caliber._worker", "--provider", file + ":Fast", "--"}));
  // This build's package comes first on PYTHONPATH (the source tree's python/ here), and the run
  // identity names this executable as its harness.
  bool package_first = false;
  std::string harness, build;
  for (const auto& [name, value] : c.environment) {
    if (name == "PYTHONPATH") package_first = value.rfind(std::string(CALIBER_SOURCE_DIR) + "/python", 0) == 0;
    if (name == "CALIBER_HARNESS_EXECUTABLE") harness = value;
    if (name == "CALIBER_HARNESS_BUILD") build = value;
  }
  EXPECT_TRUE(package_first);
  EXPECT_EQ(harness, self_executable());
  EXPECT_EQ(build, harness_version());  // the worker's library must be this build
  // @plugins/ resolves in this executable's plugin directory, not the interpreter's.
  const auto plugin_dir = [](const WorkerCommand& w) {
    for (const auto& [name, value] : w.environment) {
      if (name == "CALIBER_PLUGIN_DIR") return value;
    }
    return std::string("(not set)");
  };
  EXPECT_EQ(plugin_dir(c), plugin_directory());
  EnvironmentGuard plugins("CALIBER_PLUGIN_DIR");
  ::setenv("CALIBER_PLUGIN_DIR", "/opt/caliber/plugins", 1);
  EXPECT_EQ(plugin_dir(worker_command(plan)), "/opt/caliber/plugins");

  ::setenv("CALIBER_PYTHON", "no-such-python-interpreter", 1);
  try {
    worker_command(plan);
    FAIL() << "no interpreter, no worker";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no Python interpreter 'no-such-python-interpreter' (set CALIBER_PYTHON"),
              std::string::npos)
        << e.what();
  }
}

TEST(RegisteredEntries, APythonProviderIsFoundByItsFileAndNameAndOnlyOnceRegistered) {
  const std::string dir = fresh_dir("registered_entries");
  write_text(dir + "/mine.py", "");
  int marker = 0;
  EXPECT_EQ(providers::registered_provider_entry(dir + "/mine.py", "Fast"), nullptr);
  providers::register_provider_entry(dir + "/mine.py", "Fast", &marker);
  // The same file by another spelling of its path.
  EXPECT_EQ(providers::registered_provider_entry(dir + "/./mine.py", "Fast"), &marker);
  EXPECT_EQ(providers::registered_provider_entry(dir + "/mine.py", "Slow"), nullptr);
  EXPECT_TRUE(providers::is_python_provider_file("a/b.py"));
  EXPECT_FALSE(providers::is_python_provider_file("a/libb.so"));
  // Not registered: loading says where Python providers run instead of trying dlopen.
  try {
    providers::load_plugin_provider(dir + "/mine.py", "Slow", {ops::OpType::softmax}, BackendKind::host);
    FAIL() << "an unregistered Python provider must not load";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("mine.py:Slow is not registered in this process: Python providers run in a "
                                         "worker that Python hosts"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace caliber::runner
