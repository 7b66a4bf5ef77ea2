// caliber profile: the profiler gate for one (shape, provider) cell (docs/reports.md).
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "ledger/shape_ledger.h"
#include "cli/command.h"
#include "profile/ncu_profile.h"
#include "core/subprocess.h"  // self_executable
#include "io/shape_ledger_json.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::cli {
namespace {

namespace fs = std::filesystem;

struct ProfileOptions {
  std::string op;
  std::string shape_id;
  std::string provider;
  std::string shape_ledger;
  std::string baseline_matrix;
  std::optional<std::string> out;
  std::string backend = "cuda";
  int device = 0;
  std::optional<std::string> ncu;
  std::string cell_command{kProfileCellCommandTemplate};
};

int run_profile_command(const ProfileOptions& o) {
  if (o.backend != "cuda" && o.backend != "host") {
    throw UsageError(fmt::format("--backend: unknown backend '{}' (expected cuda|host)", o.backend));
  }
  if (o.device < 0) throw UsageError(fmt::format("--device must be >= 0 (got {})", o.device));
  // The matrix first: it registers the description of an op of your own, which the ledger needs.
  const BaselineMatrix matrix = read_baseline_matrix(o.baseline_matrix);
  const std::vector<ShapeRow> ledger = read_shape_ledger(o.shape_ledger);
  const ShapeRow* shape = nullptr;
  for (const auto& s : ledger) {
    if (s.shape_id == o.shape_id) shape = &s;
  }
  if (!shape) throw UsageError(fmt::format("--shape-id {}: not in {}", o.shape_id, o.shape_ledger));
  if (shape->op_type != o.op) {
    throw UsageError(fmt::format("--op {}: shape {} is a {} shape", o.op, o.shape_id, shape->op_type));
  }
  if (matrix.op_type != o.op) {
    throw UsageError(fmt::format("--baseline-matrix {} is for op {}, not {}", o.baseline_matrix, matrix.op_type, o.op));
  }
  const MatrixProvider* provider = matrix.find(o.provider);
  if (!provider) throw UsageError(fmt::format("--provider {}: not in {}", o.provider, o.baseline_matrix));

  profile::ProfileRequest r;
  r.op_type = o.op;
  r.shape_id = o.shape_id;
  r.provider = o.provider;
  r.shape_ledger = fs::absolute(o.shape_ledger).string();
  r.shape = *shape;
  r.baseline_matrix = fs::absolute(o.baseline_matrix).string();
  r.profiles_root = o.out.value_or((fs::path(o.shape_ledger).parent_path() / "profiles").string());
  r.backend = o.backend;
  r.device = o.device;
  r.cell_command = o.cell_command;
  r.caliber_exe = self_executable();
  if (!provider->enabled) r.provider_disabled = provider->skip_reason.value_or("disabled");
  if (o.ncu) {
    if (!fs::is_regular_file(*o.ncu) || ::access(o.ncu->c_str(), X_OK) != 0) {
      throw UsageError(fmt::format("--ncu {}: not an executable file", *o.ncu));
    }
    r.ncu = *o.ncu;
  } else if (auto found = profile::find_ncu(&r.ncu_missing)) {
    r.ncu = *found;
  }
  const ProfileDiagnosis d = profile::run_profile(r, std::cout);
  std::cout << "wrote " << profile_directory(r.profiles_root, r.shape_id, r.provider) << "/diagnosis.json\n";
  return d.status == "failed" ? kExitFailed : kExitOk;
}

const RegisterCommand registration{45, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<ProfileOptions>();
  auto* cmd = root.add_subcommand(
      "profile", "Run ncu (clocks untouched) on one shape x provider cell and store its key metrics, or record why not");
  cmd->add_option("--op", o->op, "The op (rmsnorm, layernorm, softmax, gemm)")->required();
  cmd->add_option("--shape-id", o->shape_id, "The ledger's shape id (sha1:...)")->required();
  cmd->add_option("--provider", o->provider, "The provider to profile (usually the candidate)")->required();
  cmd->add_option("--shape-ledger", o->shape_ledger, "The shape ledger")->required();
  cmd->add_option("--baseline-matrix", o->baseline_matrix, "The baseline matrix")->required();
  cmd->add_option("--out", o->out, "Profiles directory (default: <ledger dir>/profiles)");
  cmd->add_option("--backend", o->backend, "cuda (ncu profiles CUDA kernels) | host (recorded as deferred)")
      ->capture_default_str();
  cmd->add_option("--device", o->device, "Device index")->capture_default_str();
  cmd->add_option("--ncu", o->ncu, "The ncu executable (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
  cmd->add_option("--cell-command", o->cell_command,
                  "Template of the command that runs the one cell under ncu; placeholders {caliber} {op} "
                  "{shape_ledger} {cell_ledger} {baseline_matrix} {shape_id} {provider} {device} {cell_out}")
      ->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run_profile_command(*o); });
}};

}  // namespace
}  // namespace caliber::cli
