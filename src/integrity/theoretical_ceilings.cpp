// Ceilings from a device's attributes (integrity/theoretical_ceilings.h).
#include "integrity/theoretical_ceilings.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "caliber/dtype.h"
#include "core/unit_text.h"
#include "integrity/host_copy_rates.h"

namespace caliber {
namespace {

// Dense floating-point operations per streaming multiprocessor per clock, per architecture, from
// NVIDIA's published peaks divided by SMs x boost clock: sm_80 A100 (312 TFLOP/s fp16/bf16
// tensor, 156 tf32, 19.5 fp32 FMA on 108 SMs at 1410 MHz); sm_90 H100 SXM (989 TFLOP/s
// fp16/bf16 dense, 495 tf32, 67 fp32 on 132 SMs); sm_100 B200 (2.25 PFLOP/s fp16/bf16 dense on
// 148 SMs). sm_70, sm_75, sm_86 and sm_89 get sm_80's tensor rates (their own are at most those)
// and their own fp32 rate (sm_86, sm_89: 128 FP32 cores per SM).
struct ArchPeak {
  std::string_view arch;
  double fp16;  // tensor cores, fp16 inputs
  double bf16;  // tensor cores, bf16 inputs
  double tf32;  // tensor cores, tf32 (what libraries may use for an fp32 matmul)
  double fp32;  // FMA units, 2 flops per FMA
};

constexpr std::array<ArchPeak, 7> kArchPeaks = {{
    {"sm_70", 2048, 2048, 1024, 128},
    {"sm_75", 2048, 2048, 1024, 128},
    {"sm_80", 2048, 2048, 1024, 128},
    {"sm_86", 2048, 2048, 1024, 256},
    {"sm_89", 2048, 2048, 1024, 256},
    {"sm_90", 4096, 4096, 2048, 256},
    {"sm_100", 8192, 8192, 4096, 256},
}};

// An architecture not in the table: twice its highest rate (each generation since sm_80 has at
// most doubled the dense tensor rate per SM per clock).
constexpr double kUnknownArchFactor = 2.0;

// Flops per SM per clock for a matmul of `dtype`: fp32 takes the larger of the tf32 tensor rate
// and the FMA rate (libraries may run an fp32 matmul on tf32 tensor cores).
double rate_of(const ArchPeak& p, DType dtype) {
  switch (dtype) {
    case DType::fp16: return p.fp16;
    case DType::bf16: return p.bf16;
    case DType::fp32: return std::max(p.tf32, p.fp32);
  }
  return p.fp16;
}

// The arch's rate and how it was chosen.
std::pair<double, std::string> flops_per_sm_clock(const std::string& arch, DType dtype) {
  for (const ArchPeak& p : kArchPeaks) {
    if (p.arch == arch) {
      return {rate_of(p, dtype), fmt::format("{} dense {} flop/clk/SM{}", arch, rate_of(p, dtype),
                                             dtype == DType::fp32 ? " (tf32 tensor rate)" : "")};
    }
  }
  double highest = 0;
  for (const ArchPeak& p : kArchPeaks) highest = std::max(highest, rate_of(p, dtype));
  const double rate = highest * kUnknownArchFactor;
  return {rate, fmt::format("{} not in the table: {} flop/clk/SM, {}x the table's highest", arch.empty() ? "?" : arch,
                            rate, kUnknownArchFactor)};
}

Ceiling available(double rate, const char* unit, std::string method) {
  Ceiling c;
  c.available = true;
  c.rate_per_s = rate;
  c.unit = unit;
  c.method = std::string(kTheoreticalMethodPrefix) + std::move(method);
  return c;
}

Ceiling not_available(const char* unit, std::string reason) {
  Ceiling c;
  c.unit = unit;
  c.reason = std::string(kTheoreticalMethodPrefix) + std::move(reason);
  return c;
}

// cuda: memory clock x bus width x 2 (double data rate).
Ceiling cuda_memory(const DeviceInfo& d) {
  if (d.mem_clock_max_mhz <= 0 || d.memory_bus_width_bits <= 0) {
    return not_available("bytes/s", "the device reports no memory clock or bus width");
  }
  const double peak = d.mem_clock_max_mhz * 1e6 * (d.memory_bus_width_bits / 8.0) * 2;
  return available(peak * kDevicePeakMargin, "bytes/s",
                   fmt::format("memory clock {} MHz x {}-bit bus x 2 (DDR) = {}, x {} margin", d.mem_clock_max_mhz,
                               d.memory_bus_width_bits, format_rate(peak, "bytes/s"), kDevicePeakMargin));
}

// Bytes per SM per clock the cache hierarchy is taken to deliver: an SM's L1 delivers 128 bytes
// per clock on sm_80 and sm_90, and L2 less; twice that, so a call served from L1 is below it.
constexpr double kCacheBytesPerSmClock = 256;

Ceiling cuda_cache(const DeviceInfo& d) {
  if (d.multiprocessors <= 0 || d.sm_clock_max_mhz <= 0) {
    return not_available("bytes/s", "the device reports no multiprocessor count or SM clock");
  }
  const double peak = d.multiprocessors * kCacheBytesPerSmClock * d.sm_clock_max_mhz * 1e6;
  return available(peak * kDevicePeakMargin, "bytes/s",
                   fmt::format("{} SMs x {} bytes/clk x {} MHz = {} (twice an SM's L1 rate), x {} margin",
                               d.multiprocessors, kCacheBytesPerSmClock, d.sm_clock_max_mhz,
                               format_rate(peak, "bytes/s"), kDevicePeakMargin));
}

Ceiling cuda_matmul(const DeviceInfo& d, DType dtype) {
  if (d.multiprocessors <= 0 || d.sm_clock_max_mhz <= 0) {
    return not_available("flop/s", "the device reports no multiprocessor count or SM clock");
  }
  const auto [per_clock, source] = flops_per_sm_clock(d.arch, dtype);
  const double peak = d.multiprocessors * d.sm_clock_max_mhz * 1e6 * per_clock;
  return available(peak * kDevicePeakMargin, "flop/s",
                   fmt::format("{} SMs x {} MHz x {} = {}, x {} margin", d.multiprocessors, d.sm_clock_max_mhz, source,
                               format_rate(peak, "flop/s"), kDevicePeakMargin));
}

// Intel AMX's stated rate: 1024 bf16 (or fp16) multiply-accumulates per clock per core.
constexpr double kHostHalfFlopsPerClock = 2048;

Ceiling host_matmul(const DeviceInfo& d, DType dtype) {
  if (d.multiprocessors <= 0) return not_available("flop/s", "the host reports no logical CPU count");
  const double clock_hz = std::max(kHostClockHz, d.sm_clock_max_mhz * 1e6);
  const bool half = dtype != DType::fp32;
  const double per_clock = half ? kHostHalfFlopsPerClock : kHostFlopsPerClock;
  return available(d.multiprocessors * clock_hz * per_clock, "flop/s",
                   fmt::format("{} logical CPUs x {:g} GHz x {:g} flop/clk ({}), a rate no CPU sustains",
                               d.multiprocessors, clock_hz / 1e9, per_clock,
                               half ? "AMX: 1024 multiply-accumulates per clock" : "2 AVX-512 FMA units"));
}

Ceiling host_copy(double rate, int cpus, const std::string& method) {
  const int threads = std::max(cpus, 1);
  return available(rate * threads * kHostCopyMargin, "bytes/s",
                   fmt::format("one thread's {} at {} x {} logical CPUs x {} margin", method,
                               format_rate(rate, "bytes/s"), threads, kHostCopyMargin));
}

}  // namespace

DeviceCeilings theoretical_ceilings(const DeviceInfo& device, const std::optional<HostCopyRates>& host_rates) {
  DeviceCeilings c;
  c.device_key = device_key(device);
  c.device = device;
  const bool host = device.backend == BackendKind::host;
  if (!host) {
    c.memory_bandwidth = cuda_memory(device);
    c.cache_bandwidth = cuda_cache(device);
  } else if (host_rates && host_rates->memory_bytes_per_s > 0 && host_rates->cache_bytes_per_s > 0) {
    const std::string& m = host_rates->method;
    const std::size_t split = m.find("; ");
    c.memory_bandwidth = host_copy(host_rates->memory_bytes_per_s, device.multiprocessors, m.substr(0, split));
    c.cache_bandwidth = host_copy(host_rates->cache_bytes_per_s, device.multiprocessors,
                                  split == std::string::npos ? m : m.substr(split + 2));
  } else {
    const std::string why = "the host's copy rates are measured only on the machine that ran the call";
    c.memory_bandwidth = not_available("bytes/s", why);
    c.cache_bandwidth = not_available("bytes/s", why);
  }
  for (DType dt : all_dtypes()) {
    c.matmul[std::string(to_string(dt))] = host ? host_matmul(device, dt) : cuda_matmul(device, dt);
  }
  return c;
}

DeviceCeilings theoretical_ceilings(const DeviceInfo& device) {
  if (device.backend != BackendKind::host) return theoretical_ceilings(device, std::nullopt);
  return theoretical_ceilings(device, host_copy_rates(device.llc_bytes));
}

bool is_theoretical(const Ceiling& ceiling) {
  return ceiling.method.starts_with(kTheoreticalMethodPrefix) || ceiling.reason.starts_with(kTheoreticalMethodPrefix);
}

}  // namespace caliber
