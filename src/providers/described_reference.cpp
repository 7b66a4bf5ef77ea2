#include "providers/described_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "ops/entrypoint.h"
#include "caliber/errors.h"
#include "core/parallel_for.h"
#include "providers/plugin_provider.h"
#include "providers/provider.h"

namespace caliber::providers {
namespace {

constexpr std::int64_t kGrain = 1 << 16;  // elements per parallel chunk of a conversion

// The problem's dtype of one precision.
caliber_dtype reference_dtype(ops::ReferencePrecision p, DType dtype) {
  switch (p) {
    case ops::ReferencePrecision::fp64: return CALIBER_DTYPE_FP64;
    case ops::ReferencePrecision::fp32: return CALIBER_DTYPE_FP32;
    case ops::ReferencePrecision::same: return abi_dtype(dtype);
  }
  return CALIBER_DTYPE_FP64;
}

// An fp64 or fp32 output element the reference did not write: a signaling NaN with a payload,
// which no arithmetic produces (a computed NaN is quiet) and no input holds.
constexpr std::uint64_t kUnwritten64 = 0x7ff40000deadbeefull;
constexpr std::uint32_t kUnwritten32 = 0x7fa0beefu;

// A cuda reference's buffers on the device: the host buffers' copies (the outputs' marks
// included), freed with it.
class DeviceCopies {
 public:
  explicit DeviceCopies(Backend& backend) : backend_(backend) {}
  ~DeviceCopies() {
    for (void* p : pointers_) backend_.deallocate(p);
  }
  DeviceCopies(const DeviceCopies&) = delete;
  DeviceCopies& operator=(const DeviceCopies&) = delete;
  void* upload(ops::HostTensor& b) {
    void* p = backend_.allocate(std::max<std::size_t>(b.bytes(), 1));
    pointers_.push_back(p);
    backend_.copy_to_device(p, b.data(), b.bytes());
    return p;
  }

 private:
  Backend& backend_;
  std::vector<void*> pointers_;
};

// An output buffer of `elements` in `element`, marked unwritten: fp64 and fp32 with the
// signaling NaN above, the narrower floating-point types with NaN, integers with zeros (no value
// tells an unwritten integer apart).
ops::HostTensor output_buffer(const std::string& name, ElementType element, std::size_t elements) {
  ops::HostTensor b(name, element, 1, static_cast<std::int64_t>(elements));
  if (element == ElementType::fp64 || element == ElementType::fp32) {
    const bool wide = element == ElementType::fp64;
    parallel_for(static_cast<std::int64_t>(elements), kGrain, [&](std::int64_t i0, std::int64_t i1) {
      for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) {
        if (wide) {
          std::memcpy(static_cast<unsigned char*>(b.data()) + i * 8, &kUnwritten64, 8);
        } else {
          std::memcpy(static_cast<unsigned char*>(b.data()) + i * 4, &kUnwritten32, 4);
        }
      }
    });
  } else if (is_integer(element)) {
    std::memset(b.data(), 0, b.bytes());
  } else {
    for (std::size_t i = 0; i < elements; ++i) b.set(i, std::numeric_limits<double>::quiet_NaN());
  }
  return b;
}

// An input tensor in the element type the reference reads it in (a copy of its bits when that is
// its own).
ops::HostTensor input_buffer(ops::ReferencePrecision precision, const ops::HostTensor& t) {
  const ElementType element = reference_element(precision, t.element());
  ops::HostTensor b(t.name(), element, 1, static_cast<std::int64_t>(t.elements()));
  if (element == t.element()) {
    std::memcpy(b.data(), t.data(), t.bytes());
    return b;
  }
  parallel_for(static_cast<std::int64_t>(t.elements()), kGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) b.set(i, t.get(i));
  });
  return b;
}

// Whether element i still holds the mark output_buffer left (`nan_is_unwritten`: a NaN in the
// narrower floating-point types counts as one, unless the inputs may hold non-finite values).
bool unwritten(const ops::HostTensor& o, std::size_t i, bool nan_is_unwritten) {
  const auto* p = static_cast<const unsigned char*>(o.data());
  if (o.element() == ElementType::fp64) return std::memcmp(p + i * 8, &kUnwritten64, 8) == 0;
  if (o.element() == ElementType::fp32) return std::memcmp(p + i * 4, &kUnwritten32, 4) == 0;
  return nan_is_unwritten && !is_integer(o.element()) && std::isnan(o.get(i));
}

// An output's values as doubles. ProviderError names the first element the reference left
// unwritten.
std::vector<double> output_values(const ops::HostTensor& o, const std::string& who, bool nan_is_unwritten) {
  std::vector<double> v(o.elements());
  parallel_for(static_cast<std::int64_t>(v.size()), kGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) v[i] = o.get(i);
  });
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (unwritten(o, i, nan_is_unwritten)) {
      throw ProviderError(fmt::format("{} left output {} element {} unwritten{}: no reference to compare with", who,
                                      o.name(), i, nan_is_unwritten ? " (or NaN)" : ""));
    }
  }
  return v;
}

// The plugin's message buffer, one per compute(): what a call leaves there is shown when a later
// one fails without a message of its own.
using PluginText = char[kPluginTextSize];

// The plugin accepts the shape (supports(), then prepare()); ProviderError says why not.
void accept_shape(const caliber_provider_v2& p, const ProblemV2& problem, const std::string& who, PluginText& text) {
  if (p.supports) {
    const caliber_status st = p.supports(p.state, problem.get(), text, sizeof text);
    if (st != CALIBER_OK) throw ProviderError(fmt::format("{} declines the shape: {}", who, plugin_text(text)));
  }
  if (p.prepare && p.prepare(p.state, problem.get(), text, sizeof text) != CALIBER_OK) {
    throw ProviderError(fmt::format("{}: prepare() failed: {}", who, plugin_text(text)));
  }
}

// One run() over the buffers; on `device` (a cuda reference; null on the host), waited for and
// its errors checked.
void run_reference(const caliber_provider_v2& p, Backend* device, const ProblemV2& problem,
                   const std::vector<void*>& in_ptrs, std::vector<void*>& out_ptrs, const std::string& who,
                   PluginText& text) {
  const std::vector<const void*> const_in_ptrs(in_ptrs.begin(), in_ptrs.end());
  caliber_buffers_v2 buffers{const_in_ptrs.data(), static_cast<std::int32_t>(const_in_ptrs.size()), out_ptrs.data(),
                             static_cast<std::int32_t>(out_ptrs.size()), device ? device->stream() : nullptr};
  if (p.run(p.state, problem.get(), &buffers, text, sizeof text) != CALIBER_OK) {
    throw ProviderError(fmt::format("{}: run() failed: {}", who, plugin_text(text)));
  }
  if (!device) return;
  try {
    device->synchronize_device();
    device->check_errors();
  } catch (const std::exception& e) {
    throw ProviderError(fmt::format("{}: the device failed running it: {}", who, e.what()));
  }
}

}  // namespace

DescribedReference::DescribedReference(const ops::DescribedOp& op, Backend* backend) : op_(op) {
  const ops::OpDescription& d = op.description();
  const std::string library = resolved_library(d.reference, d.file);
  where_ = library + ":" + d.reference.symbol;
  try {
    loaded_ = load_plugin_v2(library, d.reference.symbol, d.name);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: field 'reference.entrypoint': {}", d.file, e.what()));
  }
  if (!loaded_.offered) {
    throw UsageError(fmt::format("{}: field 'reference.entrypoint': {}", d.file, loaded_.not_offered_reason));
  }
  if (loaded_.provider.backend == CALIBER_BACKEND_CUDA) {
    if (!backend || backend->kind() != BackendKind::cuda) {
      if (loaded_.provider.destroy) loaded_.provider.destroy(loaded_.provider.state);
      throw UsageError(fmt::format(
          "{}: field 'reference.entrypoint': plugin {} {} (docs/user-ops.md, \"The reference\")", d.file, where_,
          cuda_reference_refusal(backend ? std::string(to_string(backend->kind())) : "none")));
    }
    device_ = backend;
  }
}

DescribedReference::~DescribedReference() {
  if (loaded_.provider.destroy) loaded_.provider.destroy(loaded_.provider.state);
}

std::string DescribedReference::precision(DType dtype) const {
  switch (op_.description().reference_precision) {
    case ops::ReferencePrecision::fp64: return "fp64";
    case ops::ReferencePrecision::fp32: return "fp32";
    case ops::ReferencePrecision::same: return std::string(to_string(dtype));
  }
  return "?";
}

std::vector<std::vector<double>> DescribedReference::compute(const ops::OpShape& s,
                                                             const std::vector<ops::HostTensor>& inputs) const {
  const ops::ReferencePrecision precision = op_.description().reference_precision;
  const ProblemV2 problem(s, reference_dtype(precision, s.dtype), precision);
  const std::string who =
      fmt::format("reference {} ({}{})", where_, this->precision(s.dtype), device_ ? ", on the device" : "");
  PluginText text = {0};
  accept_shape(loaded_.provider, problem, who, text);
  std::vector<ops::HostTensor> ins;
  for (const ops::HostTensor& t : inputs) ins.push_back(input_buffer(precision, t));
  const std::vector<ops::TensorSpec> out_specs = op_.outputs(s);
  // An in-place output is its input's buffer, as for the providers: the reference updates it.
  std::vector<ops::HostTensor> outs;
  for (const ops::TensorSpec& t : out_specs) {
    outs.push_back(t.in_place_of ? ops::HostTensor{}
                                 : output_buffer(t.name, reference_element(precision, t.element),
                                                 static_cast<std::size_t>(t.elements())));
  }
  const auto out_buffer = [&](std::size_t k) -> ops::HostTensor& {
    return out_specs[k].in_place_of ? ins.at(*out_specs[k].in_place_of) : outs[k];
  };
  // The buffers the reference reads and writes: the host buffers, or their copies on the device
  // (a cuda reference), copied back when it has run.
  std::optional<DeviceCopies> on_device;
  std::vector<void*> in_ptrs;
  if (device_) on_device.emplace(*device_);
  for (ops::HostTensor& b : ins) in_ptrs.push_back(device_ ? on_device->upload(b) : b.data());
  std::vector<void*> out_ptrs;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    out_ptrs.push_back(out_specs[k].in_place_of ? in_ptrs.at(*out_specs[k].in_place_of)
                                                : device_ ? on_device->upload(outs[k]) : outs[k].data());
  }
  run_reference(loaded_.provider, device_, problem, in_ptrs, out_ptrs, who, text);
  if (device_) {
    for (std::size_t k = 0; k < outs.size(); ++k) {
      ops::HostTensor& host = out_buffer(k);
      device_->copy_to_host(host.data(), out_ptrs[k], host.bytes());
    }
  }
  // An in-place output starts from its input's values, which the reference may leave as they are.
  const bool nan_is_unwritten = !op_.draws_nonfinite();
  std::vector<std::vector<double>> values;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    values.push_back(out_specs[k].in_place_of ? output_values(out_buffer(k), who, false)
                                              : output_values(out_buffer(k), who, nan_is_unwritten));
  }
  return values;
}

ElementType reference_element(ops::ReferencePrecision precision, ElementType e) {
  if (is_integer(e)) return e;
  switch (precision) {
    case ops::ReferencePrecision::fp64: return ElementType::fp64;
    case ops::ReferencePrecision::fp32: return ElementType::fp32;
    case ops::ReferencePrecision::same: return e;
  }
  return e;
}

}  // namespace caliber::providers
