#include "providers/plugin_provider.h"

#include <dlfcn.h>

#include <cstring>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/one_line.h"
#include "caliber/plugin_abi.h"
#include "ops/op_catalog.h"
#include "providers/plugin_v2.h"
#include "providers/registered_entries.h"

namespace caliber::providers {

caliber_dtype abi_dtype(DType d) { return abi_dtype(element_of(d)); }

caliber_dtype abi_dtype(ElementType e) {
  switch (e) {
    case ElementType::fp32: return CALIBER_DTYPE_FP32;
    case ElementType::bf16: return CALIBER_DTYPE_BF16;
    case ElementType::fp16: return CALIBER_DTYPE_FP16;
    case ElementType::fp64: return CALIBER_DTYPE_FP64;
    case ElementType::fp8_e4m3: return CALIBER_DTYPE_FP8_E4M3;
    case ElementType::fp8_e5m2: return CALIBER_DTYPE_FP8_E5M2;
    case ElementType::int8: return CALIBER_DTYPE_INT8;
    case ElementType::uint8: return CALIBER_DTYPE_UINT8;
    case ElementType::int32: return CALIBER_DTYPE_INT32;
    case ElementType::int64: return CALIBER_DTYPE_INT64;
    case ElementType::boolean: return CALIBER_DTYPE_BOOL;
  }
  return CALIBER_DTYPE_FP32;
}

// A provider's self-description in each row: at most this much of it (cut with "... (N bytes)").
constexpr std::size_t kMaxProviderDetailBytes = 1024;
constexpr std::size_t kMaxScannedDetailBytes = 16u << 20;
constexpr std::size_t kMaxBuildFlagsBytes = 512;

std::string plugin_text(const char* buffer) {
  std::string s(buffer, strnlen(buffer, kPluginTextSize));
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s.empty() ? "(no message)" : s;
}

ProblemV2::ProblemV2(const ops::OpShape& s, caliber_dtype dtype, std::optional<ops::ReferencePrecision> reference)
    : op_(s.op_name()), layout_(s.layout), args_json_(ops::args_to_json(s).dump()) {
  const ops::DescribedOp& op = *s.described;
  sha256_ = op.description().sha256;
  for (const ops::OpArgument& a : op.description().args) {
    arg_names_.push_back(a.name);
    arg_values_.push_back(s.values.at(a.name));
  }
  for (const std::string& n : arg_names_) arg_name_ptrs_.push_back(n.c_str());
  const std::vector<ops::TensorSpec> ins = op.inputs(s), outs = op.outputs(s);
  // Every string and array is in place before any pointer into them is taken.
  for (const auto* list : {&ins, &outs}) {
    for (const ops::TensorSpec& t : *list) {
      tensor_names_.push_back(t.name);
      dims_.push_back(t.extents());
      (list == &ins ? input_dtypes_ : output_dtypes_)
          .push_back(abi_dtype(reference ? reference_element(*reference, t.element) : t.element));
    }
  }
  std::size_t k = 0;
  for (const auto& [list, into] : {std::pair{&ins, &inputs_}, std::pair{&outs, &outputs_}}) {
    for (const ops::TensorSpec& t : *list) {
      into->push_back({tensor_names_[k].c_str(), static_cast<std::int32_t>(dims_[k].size()), dims_[k].data(),
                       t.elements()});
      ++k;
    }
  }
  p_.op_type = op_.c_str();
  p_.dtype = dtype;
  p_.layout = layout_.c_str();
  p_.args_json = args_json_.c_str();
  p_.arg_count = static_cast<std::int32_t>(arg_names_.size());
  p_.arg_names = arg_name_ptrs_.data();
  p_.arg_values = arg_values_.data();
  p_.input_count = static_cast<std::int32_t>(inputs_.size());
  p_.inputs = inputs_.data();
  p_.output_count = static_cast<std::int32_t>(outputs_.size());
  p_.outputs = outputs_.data();
  p_.description_sha256 = sha256_.c_str();
  p_.input_dtypes = input_dtypes_.data();
  p_.output_dtypes = output_dtypes_.data();
}

namespace {

// The problem struct of a shipped op and the strings it points into.
struct ProblemV1 {
  explicit ProblemV1(const ops::OpShape& s) : op(ops::to_string(s.op)), layout(s.layout), args(ops::args_to_json(s).dump()) {
    p.op_type = op.c_str();
    p.dtype = abi_dtype(s.dtype);
    p.layout = layout.c_str();
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.eps = s.eps;
    p.args_json = args.c_str();
  }
  ProblemV1(const ProblemV1&) = delete;
  const caliber_problem_v1* get() const { return &p; }
  std::string op, layout, args;
  caliber_problem_v1 p{};
};

// What differs between the ABI versions; everything else (the entry's protocol, the checks of the
// filled struct, the provider) is written once below.
struct AbiV1 {
  using Struct = caliber_provider_v1;
  using Entry = caliber_plugin_entry_v1;
  using Problem = ProblemV1;
  static constexpr std::uint32_t kVersion = CALIBER_PLUGIN_ABI_VERSION;
  static std::unique_ptr<ProblemV1> problem(const ops::OpShape& s) { return std::make_unique<ProblemV1>(s); }
  // "" or the problem with struct_size; a plugin built before the config callbacks keeps loading.
  static std::string check_size(Struct& p) {
    if (p.struct_size == CALIBER_PROVIDER_V1_BASE_SIZE) {
      // Built before the config callbacks: whatever lies past its struct is not its.
      p.pin_config = nullptr;
      p.chosen_config = nullptr;
      return {};
    }
    if (p.struct_size == sizeof(Struct)) return {};
    return fmt::format("has provider struct_size {}, neither sizeof(caliber_provider_v1) = {} nor the size before "
                       "the config callbacks, {}",
                       p.struct_size, sizeof(Struct), CALIBER_PROVIDER_V1_BASE_SIZE);
  }
  static caliber_status run(const Struct& p, const ProblemV1& problem, const OpBuffers& b, void* stream, char* error) {
    caliber_buffers_v1 buffers{};
    buffers.inputs = b.inputs.data();
    buffers.input_count = static_cast<std::int32_t>(b.inputs.size());
    buffers.output = b.output;
    buffers.stream = stream;
    return p.run(p.state, problem.get(), &buffers, error, kPluginTextSize);
  }
};

struct AbiV2 {
  using Struct = caliber_provider_v2;
  using Entry = caliber_plugin_entry_v2;
  using Problem = ProblemV2;
  static constexpr std::uint32_t kVersion = CALIBER_PLUGIN_ABI_VERSION_2;
  static std::unique_ptr<ProblemV2> problem(const ops::OpShape& s) {
    return std::make_unique<ProblemV2>(s, abi_dtype(s.dtype));
  }
  static std::string check_size(Struct& p) {
    if (p.struct_size == sizeof(Struct)) return {};
    return fmt::format("has provider struct_size {}, not sizeof(caliber_provider_v2) = {}", p.struct_size,
                       sizeof(Struct));
  }
  static caliber_status run(const Struct& p, const ProblemV2& problem, const OpBuffers& b, void* stream, char* error) {
    caliber_buffers_v2 buffers{};
    buffers.inputs = b.inputs.data();
    buffers.input_count = static_cast<std::int32_t>(b.inputs.size());
    buffers.outputs = b.outputs.data();
    buffers.output_count = static_cast<std::int32_t>(b.outputs.size());
    buffers.stream = stream;
    return p.run(p.state, problem.get(), &buffers, error, kPluginTextSize);
  }
};

template <class Abi>
using Loaded = LoadedPlugin<typename Abi::Struct>;

// Calls a plugin's entry for `op_name` with the ABI version `Abi` and checks the provider struct
// it fills. Returns "" (out filled, or out.offered false) or the problem, phrased to follow
// "plugin <lib>:<symbol> ".
template <class Abi>
std::string call_entry(void* symbol_address, const std::string& op_name, Loaded<Abi>& out) {
  auto entry = reinterpret_cast<typename Abi::Entry>(symbol_address);
  char error[kPluginTextSize] = {0};
  const caliber_status st = entry(Abi::kVersion, op_name.c_str(), &out.provider, error, sizeof error);
  if (st == CALIBER_UNSUPPORTED) {
    out.offered = false;
    out.not_offered_reason = fmt::format("does not offer op {}: {}", op_name, plugin_text(error));
    return {};
  }
  if (st != CALIBER_OK) return fmt::format("refused to load for op {}: {}", op_name, plugin_text(error));
  auto& p = out.provider;
  if (p.abi_version != Abi::kVersion) {
    return fmt::format("was built for plugin ABI version {}; this caliber speaks version {} for op {}{}",
                       p.abi_version, Abi::kVersion, op_name,
                       Abi::kVersion == CALIBER_PLUGIN_ABI_VERSION_2 ? " (a described op: docs/user-ops.md)" : "");
  }
  if (std::string problem = Abi::check_size(p); !problem.empty()) return problem;
  if ((p.pin_config == nullptr) != (p.chosen_config == nullptr)) {
    return "fills only one of pin_config and chosen_config: a choice that is recorded must be replayable";
  }
  if (!p.run) return "has no run function in its provider struct";
  if (p.backend != CALIBER_BACKEND_HOST && p.backend != CALIBER_BACKEND_CUDA) {
    return fmt::format("declares unknown backend {}", static_cast<int>(p.backend));
  }
  if (p.flags & ~(CALIBER_INCLUDES_ALLOCATION | CALIBER_INCLUDES_LAYOUT_CONVERSION | CALIBER_INCLUDES_JIT)) {
    return fmt::format("sets unknown flag bits {:#x}", p.flags);
  }
  return {};
}

// The flags a plugin declares it was built with (CALIBER_DECLARE_BUILD_FLAGS), one bounded line;
// "" when it declares none.
std::string declared_build_flags(void* handle) {
  const auto* flags = static_cast<const char*>(::dlsym(handle, CALIBER_BUILD_FLAGS_SYMBOL));
  if (!flags) return "";
  return quoted_text(std::string_view(flags, strnlen(flags, kMaxScannedDetailBytes)), kMaxBuildFlagsBytes);
}

void* entry_symbol(const std::string& library, const std::string& symbol, std::string& build_flags) {
  const std::string where = library + ":" + symbol;
  if (is_python_provider_file(library)) {
    // A Python provider: its entry is registered by the Python process hosting this worker.
    if (void* registered = registered_provider_entry(library, symbol)) return registered;
    throw UsageError(fmt::format("python provider {} is not registered in this process: Python providers run in a "
                                 "worker that Python hosts (docs/python.md, \"Python providers\")",
                                 where));
  }
  // Never closed: a plugin may own threads or thread-local state until the process ends.
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw UsageError(fmt::format("plugin {} does not load: {}", where, ::dlerror()));
  ::dlerror();
  void* sym = ::dlsym(handle, symbol.c_str());
  if (!sym) throw UsageError(fmt::format("plugin {}: symbol '{}' not found in {}", where, symbol, library));
  build_flags = declared_build_flags(handle);
  return sym;
}

template <class Abi>
Loaded<Abi> load(const std::string& library, const std::string& symbol, const std::string& op_name) {
  const std::string where = library + ":" + symbol;
  Loaded<Abi> out;
  void* entry = entry_symbol(library, symbol, out.build_flags);
  if (const std::string problem = call_entry<Abi>(entry, op_name, out); !problem.empty()) {
    throw UsageError(fmt::format("plugin {} {}", where, problem));
  }
  if (!out.offered) out.not_offered_reason = fmt::format("plugin {} {}", where, out.not_offered_reason);
  return out;
}

template <class Abi>
class PluginProvider final : public Provider {
 public:
  PluginProvider(std::string where, Loaded<Abi> loaded, BackendKind backend)
      : where_(std::move(where)), loaded_(loaded) {
    if (!loaded_.offered) {
      unavailable_ = loaded_.not_offered_reason;
    } else {
      const BackendKind plugin_backend =
          loaded_.provider.backend == CALIBER_BACKEND_CUDA ? BackendKind::cuda : BackendKind::host;
      if (plugin_backend != backend) {
        unavailable_ = fmt::format("plugin {} is for the {} backend; this run uses {}", where_,
                                   to_string(plugin_backend), to_string(backend));
      }
    }
  }
  ~PluginProvider() override {
    if (loaded_.offered && loaded_.provider.destroy) loaded_.provider.destroy(loaded_.provider.state);
  }

  std::string name() const override { return where_; }
  std::string detail(const ops::OpShape&) const override {
    const char* d = loaded_.provider.detail;
    const std::string built =
        loaded_.build_flags.empty() ? "" : fmt::format(" (built with: {})", loaded_.build_flags);
    if (!d) return fmt::format("plugin {}{}", where_, built);
    // Every row carries it: bounded (and one line), whatever the plugin's string holds.
    return fmt::format("plugin {}: {}{}", where_,
                       quoted_text(std::string_view(d, strnlen(d, kMaxScannedDetailBytes)), kMaxProviderDetailBytes),
                       built);
  }
  ProviderFlags flags() const override {
    const std::uint32_t f = loaded_.provider.flags;
    return {(f & CALIBER_INCLUDES_ALLOCATION) != 0, (f & CALIBER_INCLUDES_LAYOUT_CONVERSION) != 0,
            (f & CALIBER_INCLUDES_JIT) != 0};
  }
  std::optional<std::string> unavailable() const override { return unavailable_; }

  Support supports(const ops::OpShape& s) const noexcept override {
    try {
      if (!loaded_.provider.supports) return Support::yes();
      const auto problem = Abi::problem(s);
      char reason[kPluginTextSize] = {0};
      const caliber_status st =
          loaded_.provider.supports(loaded_.provider.state, problem->get(), reason, sizeof reason);
      if (st == CALIBER_OK) return Support::yes();
      return Support::no(st == CALIBER_UNSUPPORTED ? plugin_text(reason)
                                                   : "supports() returned an error: " + plugin_text(reason));
    } catch (const std::exception& e) {
      return Support::no(std::string("supports() failed: ") + e.what());
    }
  }

  void prepare(const ops::OpShape& s, Backend&) override {
    problem_ = Abi::problem(s);
    if (!loaded_.provider.prepare) return;
    char error[kPluginTextSize] = {0};
    if (loaded_.provider.prepare(loaded_.provider.state, problem_->get(), error, sizeof error) != CALIBER_OK) {
      throw ProviderError("plugin prepare() failed: " + plugin_text(error));
    }
  }

  void run(const ops::OpShape& s, const OpBuffers& b, void* stream) override {
    if (!problem_) problem_ = Abi::problem(s);
    char error[kPluginTextSize] = {0};
    if (Abi::run(loaded_.provider, *problem_, b, stream, error) != CALIBER_OK) {
      throw ProviderError("plugin run() failed: " + plugin_text(error));
    }
  }

  void release() override { problem_.reset(); }

  void pin_config(const std::optional<std::string>& key) override {
    if (!loaded_.provider.pin_config) {
      Provider::pin_config(key);  // chooses nothing: refuses a key
      return;
    }
    char error[kPluginTextSize] = {0};
    if (loaded_.provider.pin_config(loaded_.provider.state, key ? key->c_str() : nullptr, error, sizeof error) !=
        CALIBER_OK) {
      if (key) throw ConfigRefused(fmt::format("plugin pin_config('{}') refused: {}", *key, plugin_text(error)));
      throw ProviderError("plugin pin_config(NULL) failed: " + plugin_text(error));
    }
  }
  std::optional<ChosenConfig> chosen_config() const override {
    if (!loaded_.provider.chosen_config) return std::nullopt;
    char config[kPluginTextSize] = {0}, description[kPluginTextSize] = {0};
    const caliber_status st =
        loaded_.provider.chosen_config(loaded_.provider.state, config, sizeof config, description, sizeof description);
    if (st == CALIBER_UNSUPPORTED) return std::nullopt;
    if (st != CALIBER_OK) throw ProviderError("plugin chosen_config() failed: " + plugin_text(description));
    const std::string key = plugin_text(config);
    if (key.empty()) throw ProviderError("plugin chosen_config() returned CALIBER_OK with an empty config");
    return ChosenConfig{key, plugin_text(description)};
  }

 private:
  std::string where_;
  Loaded<Abi> loaded_;
  std::optional<std::string> unavailable_;
  std::unique_ptr<typename Abi::Problem> problem_;
};

template <class Abi>
std::string entry_problem(void* entry, const std::string& op_name, bool as_reference,
                          std::optional<BackendKind> run_backend) {
  Loaded<Abi> l;
  std::string problem = call_entry<Abi>(entry, op_name, l);
  if (!problem.empty()) return problem;  // the struct is not to be trusted: not destroyed
  if (as_reference && !l.offered) return l.not_offered_reason;
  if (as_reference && l.provider.backend == CALIBER_BACKEND_CUDA && run_backend && *run_backend != BackendKind::cuda) {
    problem = cuda_reference_refusal(std::string(to_string(*run_backend)));
  }
  if (l.offered && l.provider.destroy) l.provider.destroy(l.provider.state);
  return problem;
}

}  // namespace

PluginOp::PluginOp(ops::OpType shipped) : op(&ops::known_op(ops::to_string(shipped))) {}
bool PluginOp::abi_v2() const { return !op->shipped(); }
std::string PluginOp::name() const { return op->description().name; }

LoadedV2 load_plugin_v2(const std::string& library, const std::string& symbol, const std::string& op_name) {
  return load<AbiV2>(library, symbol, op_name);
}

std::unique_ptr<Provider> load_plugin_provider(const std::string& library, const std::string& symbol,
                                               const PluginOp& op, BackendKind backend) {
  const std::string where = library + ":" + symbol;
  // A Python provider's entry speaks ABI v2 for every op: its problem carries the tensor lists.
  if (op.abi_v2() || is_python_provider_file(library)) {
    return std::make_unique<PluginProvider<AbiV2>>(where, load<AbiV2>(library, symbol, op.name()), backend);
  }
  return std::make_unique<PluginProvider<AbiV1>>(where, load<AbiV1>(library, symbol, op.name()), backend);
}

std::string cuda_reference_refusal(const std::string& backend) {
  return fmt::format("is a cuda reference and this run's backend is {}: a cuda reference runs on the cuda backend only",
                     backend);
}

std::string plugin_entry_problem(void* entry, const PluginOp& op, bool as_reference,
                                 std::optional<BackendKind> run_backend) {
  return op.abi_v2() ? entry_problem<AbiV2>(entry, op.name(), as_reference, run_backend)
                       : entry_problem<AbiV1>(entry, op.name(), as_reference, run_backend);
}

}  // namespace caliber::providers
