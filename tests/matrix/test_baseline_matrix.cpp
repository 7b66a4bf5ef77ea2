// baseline_matrix.yaml: the fields, entrypoints, and errors that name file, line and field.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber {
namespace {

const char* kGood = R"(schema_version: 1
kernel: rmsnorm
op_type: rmsnorm
dtype: [fp32, bf16]
reference_provider: naive
layout_contract: row_major
providers:
  caliber:
    enabled: true
    entrypoint: "builtin:caliber"
    provider: caliber
    notes: the candidate
  naive: {enabled: true, entrypoint: "builtin:naive", provider: caliber}
  mine:
    enabled: true
    entrypoint: "lib/c:/libmine.so:my_rmsnorm"
    provider: plugin
  cudnn:
    enabled: false
    provider: cudnn
    skip_reason: cuDNN has no RMSNorm outside its graph API
)";

std::string error_of(const std::string& text) {
  try {
    parse_baseline_matrix(text, "baseline_matrix.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(BaselineMatrix, ReadsEveryFieldInFileOrder) {
  const BaselineMatrix m = parse_baseline_matrix(kGood, "dir/baseline_matrix.yaml");
  EXPECT_EQ(m.kernel, "rmsnorm");
  EXPECT_EQ(m.op_type, "rmsnorm");
  EXPECT_EQ(m.dtypes, (std::vector<DType>{DType::fp32, DType::bf16}));
  EXPECT_TRUE(m.covers(DType::bf16));
  EXPECT_FALSE(m.covers(DType::fp16));
  EXPECT_EQ(m.reference_provider, "naive");
  ASSERT_EQ(m.providers.size(), 4u);
  EXPECT_EQ(m.providers[0].name, "caliber");
  EXPECT_EQ(m.providers[0].line, 8);  // the line of its key
  EXPECT_EQ(m.providers[0].notes, "the candidate");
  EXPECT_EQ(m.providers[0].entrypoint->kind, Entrypoint::Kind::builtin);
  EXPECT_EQ(m.providers[0].entrypoint->builtin, "caliber");
  EXPECT_EQ(m.providers[2].entrypoint->kind, Entrypoint::Kind::plugin);
  EXPECT_EQ(m.providers[2].entrypoint->library, "lib/c:/libmine.so");  // the last ':' splits
  EXPECT_EQ(m.providers[2].entrypoint->symbol, "my_rmsnorm");
  EXPECT_FALSE(m.providers[3].enabled);
  EXPECT_EQ(m.providers[3].skip_reason, "cuDNN has no RMSNorm outside its graph API");
  EXPECT_EQ(resolved_library(*m.providers[2].entrypoint, m.file), "dir/lib/c:/libmine.so");
}

TEST(BaselineMatrix, ASingleDtypeIsAccepted) {
  const BaselineMatrix m = parse_baseline_matrix(replaced(kGood, "[fp32, bf16]", "bf16"), "m.yaml");
  EXPECT_EQ(m.dtypes, std::vector<DType>{DType::bf16});
}

TEST(BaselineMatrix, ErrorsNameFileLineAndField) {
  struct Case {
    std::string text;
    const char* where;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {replaced(kGood, "    skip_reason: cuDNN has no RMSNorm outside its graph API\n", ""),
       "baseline_matrix.yaml:19: field 'providers.cudnn.skip_reason'", "required when enabled is false"},
      {replaced(kGood, "    provider: plugin\n", "    provider: plugin\n    colour: red\n"),
       "baseline_matrix.yaml:18: field 'providers.mine.colour'", "unknown field"},
      {replaced(kGood, "[fp32, bf16]", "[fp32, fp8]"), "baseline_matrix.yaml:4: field 'dtype'", "unknown dtype 'fp8'"},
      {replaced(kGood, "op_type: rmsnorm", "op_type: conv2d"), "baseline_matrix.yaml:3: field 'op_type'",
       "unknown op 'conv2d'"},
      {replaced(kGood, "reference_provider: naive", "reference_provider: torch"),
       "baseline_matrix.yaml:5: field 'reference_provider'", "not one of the providers"},
      {replaced(kGood, "  naive: {enabled: true", "  caliber: {enabled: true"), "baseline_matrix.yaml:13: field 'providers.caliber'",
       "duplicate key"},
      {replaced(kGood, "    enabled: true\n    entrypoint: \"builtin:caliber\"", "    enabled: yes please\n    entrypoint: \"builtin:caliber\""),
       "baseline_matrix.yaml:9: field 'providers.caliber.enabled'", "expected true or false"},
      {replaced(kGood, "\"lib/c:/libmine.so:my_rmsnorm\"", "\"libmine.so\""),
       "baseline_matrix.yaml:16: field 'providers.mine.entrypoint'", "expected builtin:NAME, python:path/to/file.py:NAME or path/to/lib.so:symbol"},
      {replaced(kGood, "  mine:\n", "  Mine:\n"), "baseline_matrix.yaml:15: field 'providers.Mine'", "lowercase"},
      {replaced(kGood, "schema_version: 1", "schema_version: 2"), "baseline_matrix.yaml:1: field 'schema_version'",
       "unsupported schema version 2"},
      {replaced(kGood, "provider: caliber}", "provider: caliber"), "baseline_matrix.yaml:14", "malformed YAML"},
      {replaced(kGood, "kernel: rmsnorm\n", ""), "baseline_matrix.yaml:1: field 'kernel'", "missing"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.text);
    EXPECT_NE(msg.find(c.where), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << msg;
  }
}

// Entrypoint::parse's refusal, or "(accepted)".
std::string message(const std::string& text) {
  try {
    Entrypoint::parse(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Entrypoint, ParsesBuiltinsAndPluginsAndRefusesTheRest) {
  EXPECT_EQ(Entrypoint::parse("builtin:cublas").builtin, "cublas");
  const Entrypoint p = Entrypoint::parse("/abs/libx.so:entry_v1");
  EXPECT_EQ(p.library, "/abs/libx.so");
  EXPECT_EQ(p.symbol, "entry_v1");
  EXPECT_THROW(Entrypoint::parse("builtin:"), UsageError);
  EXPECT_THROW(Entrypoint::parse("libx.so:"), UsageError);
  EXPECT_THROW(Entrypoint::parse("libx.so:1bad"), UsageError);
  EXPECT_EQ(resolved_library(p, "any/matrix.yaml"), "/abs/libx.so");
}

TEST(Entrypoint, ParsesPythonProvidersAndResolvesTheirFilesBesideTheMatrix) {
  const Entrypoint p = Entrypoint::parse("python:providers/mine.py:fused");
  EXPECT_EQ(p.kind, Entrypoint::Kind::python);
  EXPECT_EQ(p.library, "providers/mine.py");
  EXPECT_EQ(p.symbol, "fused");
  EXPECT_TRUE(p.loaded_from_file());
  EXPECT_FALSE(Entrypoint::parse("builtin:naive").loaded_from_file());
  EXPECT_EQ(resolved_library(p, "runs/m/matrix.yaml"), "runs/m/providers/mine.py");
  EXPECT_EQ(message("python:mine.py:"), "'python:mine.py:': expected python:path/to/file.py:NAME");
  EXPECT_EQ(message("python:mine.py:my-fn"),
            "'python:mine.py:my-fn': 'my-fn' is not a Python name (letters, digits and '_', at most 256 characters)");
  // a symbol of 30,000 characters: refused in one line, without a recursion over its length
  const std::string huge = "libx.so:" + std::string(30'000, 'a');
  EXPECT_EQ(message(huge), "'libx.so:" + std::string(112, 'a') + "... (30008 bytes)': '" + std::string(120, 'a') +
                               "... (30000 bytes)' is not a C symbol name (letters, digits and '_', at most 256 "
                               "characters)");
  EXPECT_EQ(Entrypoint::parse("libx.so:" + std::string(256, 'a')).symbol.size(), 256u);
  EXPECT_EQ(message("python:libmine.so:fn"), "'python:libmine.so:fn': 'libmine.so' is not a Python file (expected a .py path)");
}

TEST(Entrypoint, ALibraryBesideAMatrixInTheWorkingDirectoryKeepsItsDirectory) {
  // dlopen("libx.so") searches the system's library path; "./libx.so" is the file beside the matrix.
  const Entrypoint p = Entrypoint::parse("./libx.so:entry");
  EXPECT_EQ(resolved_library(p, "m.yaml"), "./libx.so");
  EXPECT_EQ(resolved_library(p, "./m.yaml"), "./libx.so");
  EXPECT_EQ(resolved_library(Entrypoint::parse("libx.so:entry"), "m.yaml"), "./libx.so");
  EXPECT_EQ(resolved_library(Entrypoint::parse("python:mine.py:fused"), "./m.yaml"), "./mine.py");
  EXPECT_EQ(resolved_library(Entrypoint::parse("../libx.so:entry"), "m.yaml"), "../libx.so");
  EXPECT_EQ(resolved_library(Entrypoint::parse("libx.so:entry"), "runs/m.yaml"), "runs/libx.so");
}

TEST(Entrypoint, OwnPluginsResolveInThePluginDirectory) {
  ::setenv("CALIBER_PLUGIN_DIR", "/opt/caliber/plugins", 1);
  EXPECT_EQ(resolved_library(Entrypoint::parse("@plugins/libcaliber_openblas.so:sym"), "m.yaml"),
            "/opt/caliber/plugins/libcaliber_openblas.so");
  ::unsetenv("CALIBER_PLUGIN_DIR");
}

TEST(Entrypoint, AnOwnPluginNameStaysInThePluginDirectory) {
  EXPECT_EQ(message("@plugins/../../../usr/lib/libevil.so:entry"),
            "'@plugins/../../../usr/lib/libevil.so:entry': '@plugins/../../../usr/lib/libevil.so' is not a file "
            "inside caliber's plugin directory (@plugins/ names a library there, without '..')");
  EXPECT_NE(message("@plugins/sub/../../libx.so:entry"), "(accepted)");
  EXPECT_NE(message("python:@plugins/../x.py:fused"), "(accepted)");
  EXPECT_NE(message("@plugins/:entry"), "(accepted)");
  EXPECT_NE(message("@plugins/sub/:entry"), "(accepted)");
  EXPECT_EQ(message("@plugins/sub/libx.so:entry"), "(accepted)");
  EXPECT_EQ(message("@plugins/./libx.so:entry"), "(accepted)");
}

TEST(BaselineMatrix, APluginThatIsThereButIsNoRegularFileIsRefusedWithItsLine) {
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / ("matrix_fifo_plugin_" + std::to_string(::getpid()))).lexically_normal().string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir + "/libfifo.so").c_str(), 0600), 0);
  std::filesystem::create_directories(dir + "/libdir.so");
  const auto matrix = [&](const std::string& library) {
    return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: naive\n"
           "layout_contract: row_major\nproviders:\n"
           "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"
           "  mine: {enabled: true, entrypoint: \"" + library + ":entry\", provider: plugin}\n";
  };
  const auto error = [&](const std::string& library) {
    try {
      parse_baseline_matrix(matrix(library), dir + "/m.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error("libfifo.so"), dir + "/m.yaml:9: field 'providers.mine.entrypoint': " + dir +
                                     "/libfifo.so is a FIFO: only regular files are read");
  EXPECT_EQ(error("libdir.so"), dir + "/m.yaml:9: field 'providers.mine.entrypoint': " + dir + "/libdir.so is a directory");
  // Missing is the preflight's to say (plugin_loads): a matrix may come before its library.
  EXPECT_EQ(error("libmissing.so"), "(accepted)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace caliber
