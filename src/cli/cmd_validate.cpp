// caliber validate FILE...: check ledgers, matrices and results against the versioned schemas.
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "cli/command.h"
#include "io/file_kind_from_content.h"
#include "ops/op_catalog.h"
#include "core/one_line.h"
#include "io/validate_file.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  std::optional<std::string> kind;
  std::vector<std::string> op_descriptions;  // ops of your own the ledgers and results name
};

int run_validate(const ValidateOptions& o) {
  std::optional<validation::FileKind> forced;
  if (o.kind) {
    try {
      forced = validation::parse_file_kind(*o.kind);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--kind: {}", e.what()));
    }
  }
  // Every kind is known before any file is read.
  std::vector<validation::FileKind> kinds;
  for (const auto& f : o.files) {
    auto k = forced ? forced : validation::infer_file_kind(f);
    if (!k) k = validation::file_kind_from_content(f);
    std::error_code ec;
    if (!k && !std::filesystem::exists(f, ec)) throw UsageError(fmt::format("{}: does not exist", f));
    if (!k) {
      throw UsageError(fmt::format("{}: cannot tell its kind from the name (shape_ledger*.jsonl, baseline_matrix*.yaml, "
                                   "benchmark_results*.jsonl|csv, *.op.yaml) or its first record; pass --kind",
                                   f));
    }
    kinds.push_back(*k);
  }
  for (const std::string& file : o.op_descriptions) ops::register_op_description(file);
  // Descriptions among the files too, so that the ledgers and matrices beside them can name their
  // ops (one that does not read is reported in its turn below).
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    if (kinds[i] != validation::FileKind::op_description) continue;
    try {
      ops::register_op_description(o.files[i]);
    } catch (const Error&) {
    }
  }
  // The matrices' op descriptions first (ops of your own, docs/user-ops.md): a ledger of such an op
  // is read after the matrix that names its description. A matrix that does not read is reported
  // in its turn below.
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    if (kinds[i] != validation::FileKind::baseline_matrix) continue;
    try {
      read_baseline_matrix(o.files[i]);
    } catch (const Error&) {
    }
  }
  bool all_valid = true;
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    const validation::Outcome out = validation::validate_file(o.files[i], kinds[i]);
    if (out.valid()) {
      std::cout << fmt::format("{}: valid {} ({} record{}, {})\n", one_line(o.files[i]),
                               validation::to_string(kinds[i]), out.records, out.records == 1 ? "" : "s",
                               validation::schema_name(kinds[i]));
    } else {
      all_valid = false;
      for (const auto& p : out.problems) std::cerr << one_line(p.text()) << '\n';  // input text escaped
    }
  }
  return all_valid ? kExitOk : kExitUsage;
}

const RegisterCommand registration{60, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<ValidateOptions>();
  auto* cmd = root.add_subcommand("validate", "Check shape ledgers, baseline matrices and results against the "
                                              "versioned JSON schemas (exit 2 on any invalid file)");
  cmd->add_option("files", o->files, "Files to check; the kind comes from the name, else from the first record, unless --kind is given")
      ->required();
  cmd->add_option("--op-description", o->op_descriptions,
                  "The description of an op of your own that a ledger names, when no matrix given names it "
                  "(repeatable; docs/user-ops.md)")
      ->allow_extra_args(false);  // one file per --op-description: the files after it are the files to check
  cmd->add_option("--kind", o->kind,
                  "shape_ledger | baseline_matrix | benchmark_results_jsonl | benchmark_results_csv | op_description");
  cmd->callback([o, &exit_code] { exit_code = run_validate(*o); });
}};

}  // namespace
}  // namespace caliber::cli
