#include "providers/plugin_provider.h"

#include <dlfcn.h>

#include <cstring>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/plugin_abi.h"

namespace caliber::providers {
namespace {

constexpr std::size_t kTextSize = 512;

caliber_dtype abi_dtype(DType d) {
  switch (d) {
    case DType::fp32: return CALIBER_DTYPE_FP32;
    case DType::bf16: return CALIBER_DTYPE_BF16;
    case DType::fp16: return CALIBER_DTYPE_FP16;
  }
  return CALIBER_DTYPE_FP32;
}

// The problem struct and the strings it points into.
struct Problem {
  explicit Problem(const ops::OpShape& s)
      : op(ops::to_string(s.op)), layout(s.layout), args(ops::args_to_json(s).dump()) {
    p.op_type = op.c_str();
    p.dtype = abi_dtype(s.dtype);
    p.layout = layout.c_str();
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.eps = s.eps;
    p.args_json = args.c_str();
  }
  Problem(const Problem&) = delete;
  std::string op, layout, args;
  caliber_problem_v1 p{};
};

std::string text_of(const char* buffer) {
  std::string s(buffer, strnlen(buffer, kTextSize));
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s.empty() ? "(no message)" : s;
}

struct Loaded {
  caliber_provider_v1 provider{};
  bool offered = true;
  std::string not_offered_reason;
};

// Calls a plugin's entry for `op` with this caliber's ABI version and checks the provider struct
// it fills. Returns "" (out filled, or out.offered false) or the problem, phrased to follow
// "plugin <lib>:<symbol> " or "provider <name> (<lib>:<symbol>): ".
std::string call_entry(void* symbol_address, ops::OpType op, Loaded& out) {
  auto entry = reinterpret_cast<caliber_plugin_entry_v1>(symbol_address);
  char error[kTextSize] = {0};
  const std::string op_name(ops::to_string(op));
  const caliber_status st = entry(CALIBER_PLUGIN_ABI_VERSION, op_name.c_str(), &out.provider, error, sizeof error);
  if (st == CALIBER_UNSUPPORTED) {
    out.offered = false;
    out.not_offered_reason = fmt::format("does not offer op {}: {}", op_name, text_of(error));
    return {};
  }
  if (st != CALIBER_OK) return fmt::format("refused to load for op {}: {}", op_name, text_of(error));
  const caliber_provider_v1& p = out.provider;
  if (p.abi_version != CALIBER_PLUGIN_ABI_VERSION) {
    return fmt::format("was built for plugin ABI version {}; this caliber speaks version {}", p.abi_version,
                       CALIBER_PLUGIN_ABI_VERSION);
  }
  if (p.struct_size == CALIBER_PROVIDER_V1_BASE_SIZE) {
    // Built before the config callbacks: whatever lies past its struct is not its.
    out.provider.pin_config = nullptr;
    out.provider.chosen_config = nullptr;
  } else if (p.struct_size != sizeof(caliber_provider_v1)) {
    return fmt::format("has provider struct_size {}, neither sizeof(caliber_provider_v1) = {} nor the size before "
                       "the config callbacks, {}",
                       p.struct_size, sizeof(caliber_provider_v1), CALIBER_PROVIDER_V1_BASE_SIZE);
  }
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

Loaded load(const std::string& library, const std::string& symbol, ops::OpType op) {
  const std::string where = library + ":" + symbol;
  // Never closed: a plugin may own threads or thread-local state until the process ends.
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw UsageError(fmt::format("plugin {} does not load: {}", where, ::dlerror()));
  ::dlerror();
  void* sym = ::dlsym(handle, symbol.c_str());
  if (!sym) throw UsageError(fmt::format("plugin {}: symbol '{}' not found in {}", where, symbol, library));
  Loaded out;
  if (const std::string problem = call_entry(sym, op, out); !problem.empty()) {
    throw UsageError(fmt::format("plugin {} {}", where, problem));
  }
  if (!out.offered) out.not_offered_reason = fmt::format("plugin {} {}", where, out.not_offered_reason);
  return out;
}

class PluginProvider final : public Provider {
 public:
  PluginProvider(std::string where, Loaded loaded, BackendKind backend) : where_(std::move(where)), loaded_(loaded) {
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
    return fmt::format("plugin {}{}{}", where_, d ? ": " : "", d ? d : "");
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
      const Problem problem(s);
      char reason[kTextSize] = {0};
      const caliber_status st = loaded_.provider.supports(loaded_.provider.state, &problem.p, reason, sizeof reason);
      if (st == CALIBER_OK) return Support::yes();
      return Support::no(st == CALIBER_UNSUPPORTED ? text_of(reason)
                                                   : "supports() returned an error: " + text_of(reason));
    } catch (const std::exception& e) {
      return Support::no(std::string("supports() failed: ") + e.what());
    }
  }

  void prepare(const ops::OpShape& s, Backend&) override {
    problem_ = std::make_unique<Problem>(s);
    if (!loaded_.provider.prepare) return;
    char error[kTextSize] = {0};
    if (loaded_.provider.prepare(loaded_.provider.state, &problem_->p, error, sizeof error) != CALIBER_OK) {
      throw ProviderError("plugin prepare() failed: " + text_of(error));
    }
  }

  void run(const ops::OpShape& s, const OpBuffers& b, void* stream) override {
    if (!problem_) problem_ = std::make_unique<Problem>(s);
    caliber_buffers_v1 buffers{};
    buffers.inputs = b.inputs.data();
    buffers.input_count = static_cast<std::int32_t>(b.inputs.size());
    buffers.output = b.output;
    buffers.stream = stream;
    char error[kTextSize] = {0};
    if (loaded_.provider.run(loaded_.provider.state, &problem_->p, &buffers, error, sizeof error) != CALIBER_OK) {
      throw ProviderError("plugin run() failed: " + text_of(error));
    }
  }

  void release() override { problem_.reset(); }

  void pin_config(const std::optional<std::string>& key) override {
    if (!loaded_.provider.pin_config) {
      Provider::pin_config(key);  // chooses nothing: refuses a key
      return;
    }
    char error[kTextSize] = {0};
    if (loaded_.provider.pin_config(loaded_.provider.state, key ? key->c_str() : nullptr, error, sizeof error) !=
        CALIBER_OK) {
      if (key) throw ConfigRefused(fmt::format("plugin pin_config('{}') refused: {}", *key, text_of(error)));
      throw ProviderError("plugin pin_config(NULL) failed: " + text_of(error));
    }
  }
  std::optional<ChosenConfig> chosen_config() const override {
    if (!loaded_.provider.chosen_config) return std::nullopt;
    char config[kTextSize] = {0}, description[kTextSize] = {0};
    const caliber_status st =
        loaded_.provider.chosen_config(loaded_.provider.state, config, sizeof config, description, sizeof description);
    if (st == CALIBER_UNSUPPORTED) return std::nullopt;
    if (st != CALIBER_OK) throw ProviderError("plugin chosen_config() failed: " + text_of(description));
    const std::string key = text_of(config);
    if (key.empty()) throw ProviderError("plugin chosen_config() returned CALIBER_OK with an empty config");
    return ChosenConfig{key, text_of(description)};
  }

 private:
  std::string where_;
  Loaded loaded_;
  std::optional<std::string> unavailable_;
  std::unique_ptr<Problem> problem_;
};

}  // namespace

std::unique_ptr<Provider> load_plugin_provider(const std::string& library, const std::string& symbol,
                                               ops::OpType op, BackendKind backend) {
  return std::make_unique<PluginProvider>(library + ":" + symbol, load(library, symbol, op), backend);
}

std::string plugin_entry_problem(void* entry, ops::OpType op) {
  Loaded l;
  const std::string problem = call_entry(entry, op, l);
  if (problem.empty() && l.offered && l.provider.destroy) l.provider.destroy(l.provider.state);
  return problem;
}

}  // namespace caliber::providers
