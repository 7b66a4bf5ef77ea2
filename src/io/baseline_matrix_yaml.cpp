// baseline_matrix.yaml: strict reading with file, line and field in every error.
#include "io/baseline_matrix_yaml.h"

#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/input_file.h"
#include "core/json_fields.h"
#include "core/yaml_fields.h"
#include "ops/entrypoint.h"
#include "ops/op_catalog.h"
#include "ops/op_shape.h"

namespace caliber {
namespace {


bool valid_provider_name(const std::string& name) {
  static const std::regex re("[a-z][a-z0-9_]{0,63}");
  return std::regex_match(name, re);
}

// A plugin library or Python file that is there must be a regular file: a FIFO would block the
// loader, a directory or a device is no library (one that is missing is the preflight's
// plugin_loads failure: the matrix may be written before the library is built).
void refuse_unloadable_file(const YamlFields& p, const Entrypoint& e, const std::string& matrix_file) {
  const std::string library = resolved_library(e, matrix_file);
  if (const auto problem = input_file_problem(library, kMaxBinaryInputBytes); problem && *problem != "does not exist") {
    p.fail("entrypoint", fmt::format("{} {}", library, *problem));
  }
}

MatrixProvider read_provider(const YamlFields& providers, const std::string& name, const std::string& file) {
  if (!valid_provider_name(name)) {
    providers.fail(name, "provider names are lowercase letters, digits and '_', starting with a letter");
  }
  const YamlFields p = providers.mapping(name);
  p.refuse_unknown({"enabled", "entrypoint", "provider", "skip_reason", "notes"});
  MatrixProvider mp;
  mp.name = name;
  mp.line = providers.key_line(name);
  mp.enabled = p.boolean("enabled");
  mp.provider = p.str("provider");
  if (mp.provider.empty()) p.fail("provider", "must not be empty");
  if (auto e = p.opt_str("entrypoint")) {
    try {
      mp.entrypoint = Entrypoint::parse(*e);
    } catch (const UsageError& err) {
      p.fail("entrypoint", err.what());
    }
  }
  mp.skip_reason = p.opt_str("skip_reason");
  mp.notes = p.opt_str("notes");
  if (mp.enabled && !mp.entrypoint) {
    p.fail("entrypoint", "required when enabled (builtin:NAME or path/to/lib.so:symbol)");
  }
  if (mp.enabled && mp.entrypoint->loaded_from_file()) refuse_unloadable_file(p, *mp.entrypoint, file);
  if (!mp.enabled && (!mp.skip_reason || mp.skip_reason->empty())) {
    p.fail("skip_reason", "required when enabled is false: say why the provider is not run");
  }
  return mp;
}

}  // namespace

BaselineMatrix parse_baseline_matrix(const std::string& text, const std::string& file) {
  const YAML::Node doc = parse_yaml_document(text, file);
  if (!doc.IsDefined() || doc.IsNull()) throw InputError(file, 1, "", "empty baseline matrix");
  const YamlFields root(doc, file, "");
  root.refuse_unknown({"schema_version", "kernel", "op_type", "op_description", "dtype", "reference_provider",
                       "layout_contract", "providers"});
  const std::int64_t version = root.integer("schema_version");
  if (version != kBaselineMatrixSchemaVersion) {
    root.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads {})",
                                            version, kBaselineMatrixSchemaVersion));
  }
  BaselineMatrix m;
  m.file = file;
  m.kernel = root.str("kernel");
  if (m.kernel.empty()) root.fail("kernel", "must not be empty");
  m.op_type = root.str("op_type");
  if (auto description = root.opt_str("op_description")) {
    std::filesystem::path path(*description);
    if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
    m.op_description = path.lexically_normal().string();
    if (!std::filesystem::exists(*m.op_description)) {
      root.fail("op_description", fmt::format("no op description at {}", *m.op_description));
    }
    const ops::DescribedOp& op = ops::register_op_description(*m.op_description);
    if (op.description().name != m.op_type) {
      root.fail("op_type", fmt::format("'{}' differs from the op its op_description describes, '{}'", m.op_type,
                                       op.description().name));
    }
  } else {
    try {
      ops::parse_op_type(m.op_type);
    } catch (const UsageError& e) {
      root.fail("op_type", std::string(e.what()) + "; an op of your own needs op_description (docs/user-ops.md)");
    }
  }
  const YAML::Node dtype = root.get("dtype");
  auto add_dtype = [&](const YAML::Node& n) {
    if (!n.IsScalar()) root.fail("dtype", "expected a dtype name or a list of them");
    try {
      const DType d = parse_dtype(n.Scalar());
      if (m.covers(d)) root.fail("dtype", fmt::format("'{}' listed twice", n.Scalar()));
      m.dtypes.push_back(d);
    } catch (const UsageError& e) {
      root.fail("dtype", e.what());
    }
  };
  if (dtype.IsSequence()) {
    for (const YAML::Node& n : dtype) add_dtype(n);
    if (m.dtypes.empty()) root.fail("dtype", "empty list");
  } else {
    add_dtype(dtype);
  }
  m.reference_provider = root.str("reference_provider");
  m.layout_contract = root.str("layout_contract");
  if (m.layout_contract != ops::kRowMajor) {
    root.fail("layout_contract", fmt::format("unknown layout '{}' (expected {})", m.layout_contract, ops::kRowMajor));
  }
  const YamlFields providers = root.mapping("providers");
  for (const std::string& name : providers.keys()) m.providers.push_back(read_provider(providers, name, file));
  if (m.providers.empty()) root.fail("providers", "lists no provider");
  if (!m.find(m.reference_provider)) {
    root.fail("reference_provider", fmt::format("'{}' is not one of the providers", m.reference_provider));
  }
  return m;
}

BaselineMatrix read_baseline_matrix(const std::string& file) {
  return parse_baseline_matrix(read_text_file(file), file);
}

}  // namespace caliber
