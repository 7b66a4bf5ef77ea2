// Defaults of the Backend memory and integrity primitives: a backend without memory primitives
// says so; the integrity primitives stage through the host; there is no device input draw and no
// device reference (the caller draws and computes them on the host).
#include <vector>

#include <fmt/format.h>

#include "caliber/backend.h"
#include "caliber/errors.h"
#include "core/buffer_digest.h"

namespace caliber {
namespace {
[[noreturn]] void no_memory(const Backend& b) {
  throw ContractError(fmt::format("the {} backend has no memory primitives", to_string(b.kind())));
}
}  // namespace

void* Backend::allocate(std::size_t) { no_memory(*this); }
void Backend::deallocate(void*) noexcept {}
void Backend::copy_to_device(void*, const void*, std::size_t) { no_memory(*this); }
void Backend::copy_to_host(void*, const void*, std::size_t) { no_memory(*this); }
void Backend::fill_bytes(void*, unsigned char, std::size_t) { no_memory(*this); }
bool Backend::fill_draw(void*, ElementType, std::size_t, const DrawParams&) { return false; }

void Backend::copy_rows_to_host(void* host_dst, const void* device_src, std::size_t row_bytes,
                                const std::vector<std::int64_t>& rows) {
  auto* dst = static_cast<unsigned char*>(host_dst);
  const auto* src = static_cast<const unsigned char*>(device_src);
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i + 1;
    while (j < rows.size() && rows[j] == rows[j - 1] + 1) ++j;  // one copy per run of consecutive rows
    const auto first = static_cast<std::size_t>(rows[i]);
    copy_to_host(dst + first * row_bytes, src + first * row_bytes, (j - i) * row_bytes);
    i = j;
  }
}

DeviceWorkCensus Backend::census_call(const std::function<void()>& call) {
  call();
  synchronize_device();
  check_errors();
  DeviceWorkCensus c;
  c.why_not_observed = fmt::format("the {} backend has no tracer of device work", to_string(kind()));
  c.ordering_detail = c.why_not_observed;
  return c;
}

std::uint64_t Backend::checksum(const void* device_ptr, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  if (bytes) copy_to_host(host.data(), device_ptr, bytes);
  return integrity::checksum_bytes(host.data(), bytes);
}

std::uint64_t Backend::count_nonfinite(const void* device_ptr, std::size_t elements, DType dtype) {
  const std::size_t bytes = elements * dtype_size_bytes(dtype);
  std::vector<unsigned char> host(bytes);
  if (bytes) copy_to_host(host.data(), device_ptr, bytes);
  return integrity::count_nonfinite_elements(host.data(), elements, dtype);
}

void Backend::copy_on_device(void* device_dst, const void* device_src, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  if (!bytes) return;
  copy_to_host(host.data(), device_src, bytes);
  copy_to_device(device_dst, host.data(), bytes);
}

}  // namespace caliber
