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

// The element type of one precision, and its ABI dtype.
caliber_dtype reference_dtype(ops::ReferencePrecision p, DType dtype) {
  switch (p) {
    case ops::ReferencePrecision::fp64: return CALIBER_DTYPE_FP64;
    case ops::ReferencePrecision::fp32: return CALIBER_DTYPE_FP32;
    case ops::ReferencePrecision::same: return abi_dtype(dtype);
  }
  return CALIBER_DTYPE_FP64;
}

// A tensor as the reference reads or writes it: doubles (fp64), floats (fp32), or the tensor's
// own bits (same).
struct Buffer {
  std::vector<double> f64;
  std::vector<float> f32;
  ops::HostTensor same;
  void* data() {
    if (!f64.empty()) return f64.data();
    if (!f32.empty()) return f32.data();
    return same.data();
  }
  std::size_t bytes() const {
    if (!f64.empty()) return f64.size() * sizeof(double);
    if (!f32.empty()) return f32.size() * sizeof(float);
    return same.bytes();
  }
};

// A cuda reference's buffers on the device: the host buffers' copies (the outputs' NaN bytes
// included), freed with it.
class DeviceCopies {
 public:
  explicit DeviceCopies(Backend& backend) : backend_(backend) {}
  ~DeviceCopies() {
    for (void* p : pointers_) backend_.deallocate(p);
  }
  DeviceCopies(const DeviceCopies&) = delete;
  DeviceCopies& operator=(const DeviceCopies&) = delete;
  void* upload(Buffer& b) {
    void* p = backend_.allocate(std::max<std::size_t>(b.bytes(), 1));
    pointers_.push_back(p);
    backend_.copy_to_device(p, b.data(), b.bytes());
    return p;
  }

 private:
  Backend& backend_;
  std::vector<void*> pointers_;
};

// A buffer of `elements` NaNs in the reference's precision: an element the reference leaves
// unwritten stays NaN, and is refused.
Buffer nan_buffer(ops::ReferencePrecision precision, const std::string& name, DType dtype, std::size_t elements) {
  Buffer b;
  switch (precision) {
    case ops::ReferencePrecision::fp64: b.f64.assign(elements, std::numeric_limits<double>::quiet_NaN()); break;
    case ops::ReferencePrecision::fp32: b.f32.assign(elements, std::numeric_limits<float>::quiet_NaN()); break;
    case ops::ReferencePrecision::same:
      b.same = ops::HostTensor(name, dtype, 1, static_cast<std::int64_t>(elements));
      parallel_for(static_cast<std::int64_t>(elements), kGrain, [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) b.same.set(static_cast<std::size_t>(i), std::numeric_limits<float>::quiet_NaN());
      });
      break;
  }
  return b;
}

// An input tensor converted to the reference's precision (its own bits for "same").
Buffer input_buffer(ops::ReferencePrecision precision, DType dtype, const ops::HostTensor& t) {
  Buffer b = nan_buffer(precision, t.name(), dtype, t.elements());
  if (precision == ops::ReferencePrecision::same) {
    std::memcpy(b.same.data(), t.data(), t.bytes());
    return b;
  }
  parallel_for(static_cast<std::int64_t>(t.elements()), kGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) {
      if (!b.f64.empty()) {
        b.f64[i] = t.get(i);
      } else {
        b.f32[i] = static_cast<float>(t.get(i));
      }
    }
  });
  return b;
}

// An output's values as doubles (moved out of the buffer when it holds doubles). ProviderError
// names the first NaN: an element the reference did not write, or not a number.
std::vector<double> output_values(Buffer& o, std::size_t elements, const std::string& who, const std::string& name) {
  std::vector<double> v;
  if (!o.f64.empty()) {
    v = std::move(o.f64);
  } else {
    v.resize(elements);
    parallel_for(static_cast<std::int64_t>(elements), kGrain, [&](std::int64_t i0, std::int64_t i1) {
      for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) {
        v[i] = !o.f32.empty() ? o.f32[i] : o.same.get(i);
      }
    });
  }
  for (std::size_t i = 0; i < elements; ++i) {
    if (std::isnan(v[i])) {
      throw ProviderError(fmt::format("{} left output {} element {} NaN (unwritten, or not a number): no "
                                      "reference to compare with",
                                      who, name, i));
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
  const ProblemV2 problem(s, reference_dtype(precision, s.dtype));
  const std::string who =
      fmt::format("reference {} ({}{})", where_, this->precision(s.dtype), device_ ? ", on the device" : "");
  PluginText text = {0};
  accept_shape(loaded_.provider, problem, who, text);
  std::vector<Buffer> ins;
  for (const ops::HostTensor& t : inputs) ins.push_back(input_buffer(precision, s.dtype, t));
  const std::vector<ops::TensorSpec> out_specs = op_.outputs(s);
  // An in-place output is its input's buffer, as for the providers: the reference updates it.
  std::vector<Buffer> outs;
  for (const ops::TensorSpec& t : out_specs) {
    outs.push_back(t.in_place_of ? Buffer{} : nan_buffer(precision, t.name, s.dtype, static_cast<std::size_t>(t.elements())));
  }
  const auto out_buffer = [&](std::size_t k) -> Buffer& {
    return out_specs[k].in_place_of ? ins.at(*out_specs[k].in_place_of) : outs[k];
  };
  // The buffers the reference reads and writes: the host buffers, or their copies on the device
  // (a cuda reference), copied back when it has run.
  std::optional<DeviceCopies> on_device;
  std::vector<void*> in_ptrs;
  if (device_) on_device.emplace(*device_);
  for (Buffer& b : ins) in_ptrs.push_back(device_ ? on_device->upload(b) : b.data());
  std::vector<void*> out_ptrs;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    out_ptrs.push_back(out_specs[k].in_place_of ? in_ptrs.at(*out_specs[k].in_place_of)
                                                : device_ ? on_device->upload(outs[k]) : outs[k].data());
  }
  run_reference(loaded_.provider, device_, problem, in_ptrs, out_ptrs, who, text);
  if (device_) {
    for (std::size_t k = 0; k < outs.size(); ++k) {
      Buffer& host = out_buffer(k);
      device_->copy_to_host(host.data(), out_ptrs[k], host.bytes());
    }
  }
  std::vector<std::vector<double>> values;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    values.push_back(
        output_values(out_buffer(k), static_cast<std::size_t>(out_specs[k].elements()), who, out_specs[k].name));
  }
  return values;
}

}  // namespace caliber::providers
