// A provider: one implementation of an op (a hand-written kernel, a vendor library, a naive
// reference, a user's plugin). The runner hands every provider the same input buffers.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "ops/op_shape.h"

namespace caliber::providers {

// Honesty flags: what run() does besides the op itself; results rows carry them.
struct ProviderFlags {
  bool includes_allocation = false;
  bool includes_layout_conversion = false;
  bool includes_jit = false;
};

// supports()'s answer. skipped: the provider could run the shape but declines by a documented
// policy (e.g. a naive kernel's work limit), recorded as status skipped.
struct Support {
  enum class Kind { supported, unsupported, skipped };
  Kind kind = Kind::supported;
  std::string reason;  // why not; empty when supported

  static Support yes() { return {}; }
  static Support no(std::string why) { return {Kind::unsupported, std::move(why)}; }
  static Support skip(std::string why) { return {Kind::skipped, std::move(why)}; }
  bool supported() const { return kind == Kind::supported; }
};

// The buffers of one call: device pointers (host pointers on the host backend), in the op's
// input and output orders (ops::Op::inputs, ops::Op::outputs).
struct OpBuffers {
  std::vector<const void*> inputs;
  void* output = nullptr;      // the first output: the shipped ops' one output
  std::vector<void*> outputs;  // every output (a described op may have several); [0] is `output`
};

class Provider {
 public:
  virtual ~Provider() = default;
  // The implementation's own name ("caliber", "cublas", a plugin's library:symbol); a baseline
  // matrix may list it under another name.
  virtual std::string name() const = 0;
  // What this implementation is, for provider_detail (e.g. "cublasGemmEx, CUBLAS_COMPUTE_32F").
  virtual std::string detail(const ops::OpShape& shape) const = 0;
  virtual ProviderFlags flags() const { return {}; }
  // Why the provider cannot run at all here (a library that did not load); nothing when it can.
  // Recorded as status not_configured.
  virtual std::optional<std::string> unavailable() const { return std::nullopt; }
  // Never throws.
  virtual Support supports(const ops::OpShape& shape) const noexcept = 0;
  // Once per shape before any run(), outside every timed window: handles, plans, workspace.
  virtual void prepare(const ops::OpShape& /*shape*/, Backend& /*backend*/) {}
  // One call: launches (cuda, on `stream`) or performs (host) only the work under test.
  virtual void run(const ops::OpShape& shape, const OpBuffers& buffers, void* stream) = 0;
  // After the shape: frees what prepare() made.
  virtual void release() {}

  // Providers that choose a configuration per shape (a library's algorithm, an autotuner's
  // winner; docs/runner.md, "Configs recorded and replayed"):
  // - pin_config(), before prepare(): the next prepare() must use exactly `key` (a text an
  //   earlier chosen_config() returned) instead of choosing, or throw ConfigRefused saying why it
  //   cannot; nullopt: choose freely. A provider that chooses nothing refuses any key.
  // - chosen_config(), after prepare(): what it chose (or was pinned to); nullopt when it chooses
  //   nothing.
  struct ChosenConfig {
    std::string key;          // one line; handed back to pin_config() as it is
    std::string description;  // for people
  };
  virtual void pin_config(const std::optional<std::string>& key);
  virtual std::optional<ChosenConfig> chosen_config() const { return std::nullopt; }
};

// A provider's run() reported an error that is not a device fault (e.g. a plugin's
// CALIBER_ERROR); the cell is recorded as failed and the worker keeps going.
class ProviderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// prepare() found that the shape cannot be run after all (e.g. a library's heuristic offers no
// algorithm); the cell is recorded as unsupported with the message.
class UnsupportedShape : public ProviderError {
 public:
  using ProviderError::ProviderError;
};

// A pinned configuration the provider cannot use (it does not choose one, the text is not one of
// its configurations, or the library no longer offers it for this shape): the cell fails.
class ConfigRefused : public ProviderError {
 public:
  using ProviderError::ProviderError;
};

}  // namespace caliber::providers
