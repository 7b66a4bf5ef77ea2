#include "backends/host/host_backend.h"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "backends/host/host_device_info.h"
#include "backends/host_clock_timer.h"
#include "caliber/errors.h"
#include "caliber/plugin_abi.h"
#include "core/buffer_digest.h"

namespace caliber::host {
namespace {

// 2x the last-level cache, rounded up to whole MiB.
std::uint64_t flush_size_for(std::uint64_t llc_bytes) {
  const std::uint64_t mib = 1ull << 20;
  return ((2 * llc_bytes + mib - 1) / mib) * mib;
}

}  // namespace

HostBackend::HostBackend(Clock& clock) : HostBackend(clock, describe_host()) {}

HostBackend::HostBackend(Clock& clock, DeviceInfo device)
    : clock_(clock), device_(std::move(device)), flush_bytes_(flush_size_for(device_.llc_bytes)) {}

void HostBackend::flush_cache() {
  const std::size_t words = flush_bytes_ / sizeof(std::uint64_t);
  if (flush_buffer_.size() != words) flush_buffer_.assign(words, 0);
  // A new value every time, so no store can be skipped as redundant.
  const std::uint64_t g = ++flush_generation_;
  std::uint64_t* p = flush_buffer_.data();
  for (std::size_t i = 0; i < words; ++i) p[i] = g + i;
  flush_sink_ = p[g % words];  // make the stores observable
}

std::unique_ptr<SampleTimer> HostBackend::make_timer(Instrument instrument) {
  if (instrument != Instrument::wallclock) {
    throw ContractError(fmt::format("instrument {} does not exist on the host backend",
                                    to_string(instrument)));
  }
  return std::make_unique<HostClockTimer>(clock_);
}

}  // namespace caliber::host

namespace caliber::host {

void* HostBackend::allocate(std::size_t bytes) {
  void* p = nullptr;
  // The alignment the plugin ABI promises every buffer (caliber/plugin_abi.h).
  constexpr std::size_t kAlign = CALIBER_BUFFER_ALIGNMENT_HOST;
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  if (::posix_memalign(&p, kAlign, rounded == 0 ? kAlign : rounded) != 0 || !p) {
    throw OutOfMemoryError(fmt::format("host allocation of {} bytes failed", bytes));
  }
  return p;
}

void HostBackend::deallocate(void* ptr) noexcept { std::free(ptr); }

void HostBackend::copy_to_device(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void HostBackend::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void HostBackend::fill_bytes(void* dst, unsigned char value, std::size_t bytes) {
  std::memset(dst, value, bytes);
}

DeviceWorkCensus HostBackend::census_call(const std::function<void()>& call) {
  call();
  DeviceWorkCensus c;
  c.applicable = false;
  c.why_not_observed = "host backend: the call runs synchronously on the calling thread";
  c.ordering_detail = c.why_not_observed;
  return c;
}

std::uint64_t HostBackend::checksum(const void* ptr, std::size_t bytes) {
  return integrity::checksum_bytes(ptr, bytes);
}

std::uint64_t HostBackend::count_nonfinite(const void* ptr, std::size_t elements, DType dtype) {
  return integrity::count_nonfinite_elements(ptr, elements, dtype);
}

void HostBackend::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}

}  // namespace caliber::host
