// The host backend: CPU work timed with the host steady clock.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "caliber/backend.h"
#include "caliber/clock.h"

namespace caliber::host {

class HostBackend : public Backend {
 public:
  // `clock` times the samples (tests inject a ManualClock). `device` defaults to describe_host().
  explicit HostBackend(Clock& clock = steady_clock());
  HostBackend(Clock& clock, DeviceInfo device);

  BackendKind kind() const override { return BackendKind::host; }
  const DeviceInfo& device() const override { return device_; }
  void* stream() override { return nullptr; }
  void synchronize_device() override {}  // host work is synchronous
  void flush_cache() override;
  std::uint64_t flush_bytes() const override { return flush_bytes_; }
  std::unique_ptr<SampleTimer> make_timer(Instrument instrument) override;
  void* allocate(std::size_t bytes) override;  // 64-byte aligned host memory
  void deallocate(void* ptr) noexcept override;
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override;
  void fill_bytes(void* dst, unsigned char value, std::size_t bytes) override;
  // Host calls are synchronous on the calling thread: no asynchronous device work to look for.
  DeviceWorkCensus census_call(const std::function<void()>& call) override;
  bool asynchronous() const override { return false; }
  std::uint64_t checksum(const void* ptr, std::size_t bytes) override;
  std::uint64_t count_nonfinite(const void* ptr, std::size_t elements, DType dtype) override;
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override;

 private:
  Clock& clock_;
  DeviceInfo device_;
  std::uint64_t flush_bytes_;
  std::vector<std::uint64_t> flush_buffer_;  // allocated on first flush
  std::uint64_t flush_generation_ = 0;
  volatile std::uint64_t flush_sink_ = 0;
};

}  // namespace caliber::host
