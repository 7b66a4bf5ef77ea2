#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <vector>

#include "backends/host/host_backend.h"
#include "backends/host/host_device_info.h"
#include "kernels/workload.h"
#include "caliber/errors.h"
#include "caliber/measure.h"
#include "modules/backend_module.h"
#include "modules/builtins.h"

namespace caliber::host {
namespace {

namespace fs = std::filesystem;

DeviceInfo small_cpu() {
  DeviceInfo d;
  d.backend = BackendKind::host;
  d.name = "test cpu";
  d.llc_bytes = 1 << 20;
  d.llc_source = "test";
  return d;
}

// A host backend whose flush also moves the injected clock, so a flush inside a window would show.
class SlowFlushBackend : public HostBackend {
 public:
  explicit SlowFlushBackend(ManualClock& clock) : HostBackend(clock, small_cpu()), clock_(clock) {}
  void flush_cache() override {
    HostBackend::flush_cache();
    ++flushes;
    clock_.advance_us(1000);
  }
  int flushes = 0;

 private:
  ManualClock& clock_;
};

Contract host_fixed(Schedule s, CachePolicy c, std::int64_t n) {
  Contract k = default_contract(BackendKind::host);
  k.schedule = s;
  k.cache = c;
  k.warmup = 1;
  k.iterations.mode = IterationRule::Mode::fixed;
  k.iterations.count = n;
  return k;
}

TEST(HostBackend, ColdFlushIsOutsideTheWindowUnderInjectedTime) {
  ManualClock clock;
  SlowFlushBackend b(clock);
  MeasureOptions o;
  o.keep_samples = true;
  o.clock = &clock;
  for (Schedule s : {Schedule::isolated, Schedule::per_iter}) {
    b.flushes = 0;
    const Result r =
        measure(b, [&](const LaunchContext&) { clock.advance_us(7); }, host_fixed(s, CachePolicy::cold, 5), o);
    ASSERT_EQ(r.samples_us.size(), 5u);
    for (double x : r.samples_us) EXPECT_DOUBLE_EQ(x, 7.0) << to_string(s);
    EXPECT_EQ(b.flushes, 6);  // one before the warmup call and each timed call
    EXPECT_EQ(r.flush_bytes, 2u << 20);
  }
}

// Counts the copies Backend::copy_rows_to_host makes.
class CountingCopies : public HostBackend {
 public:
  explicit CountingCopies(ManualClock& clock) : HostBackend(clock, small_cpu()) {}
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    copies.push_back(bytes);
    HostBackend::copy_to_host(dst, src, bytes);
  }
  std::vector<std::size_t> copies;
};

TEST(HostBackend, CopiesTheCheckedRowsOnlyOneCopyPerRunOfRows) {
  ManualClock clock;
  CountingCopies b(clock);
  std::vector<unsigned char> device(10 * 3), host(10 * 3, 0xAA);
  for (std::size_t i = 0; i < device.size(); ++i) device[i] = static_cast<unsigned char>(i);
  b.copy_rows_to_host(host.data(), device.data(), 3, {1, 2, 3, 7, 9});
  EXPECT_EQ(b.copies, (std::vector<std::size_t>{9, 3, 3}));  // rows 1-3, 7, 9
  for (std::size_t row = 0; row < 10; ++row) {
    const bool copied = row == 1 || row == 2 || row == 3 || row == 7 || row == 9;
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(host[row * 3 + k], copied ? device[row * 3 + k] : 0xAA) << "row " << row;
    }
  }
}

TEST(HostBackend, FlushesTwiceTheLastLevelCache) {
  ManualClock clock;
  HostBackend b(clock, small_cpu());
  EXPECT_EQ(b.flush_bytes(), 2u << 20);
  DeviceInfo odd = small_cpu();
  odd.llc_bytes = 1536 * 1024 + 1;  // rounds up to whole MiB
  HostBackend c(clock, odd);
  EXPECT_EQ(c.flush_bytes(), 4u << 20);
}

TEST(HostBackend, OnlyTheWallclockInstrumentExists) {
  ManualClock clock;
  HostBackend b(clock, small_cpu());
  EXPECT_NO_THROW(b.make_timer(Instrument::wallclock));
  EXPECT_THROW(b.make_timer(Instrument::event), ContractError);
  EXPECT_THROW(b.make_timer(Instrument::cupti), ContractError);
  EXPECT_FALSE(b.supports_graphs());
  EXPECT_THROW(b.capture_graph([] {}), ContractError);
}

TEST(HostBackend, HasNoDeviceReference) {
  // Its "device" is the host: the runner computes the op's host reference.
  ManualClock clock;
  HostBackend b(clock, small_cpu());
  EXPECT_EQ(ops::make_device_reference_math(b), nullptr);
  EXPECT_FALSE(backend_module(BackendKind::host).make_device_reference_math);
}

TEST(HostBackend, RealClockEndToEndOnABuiltinKernel) {
  HostBackend b;
  auto w = bench::make_builtin_workload(b, "scale", 1 << 20, 1, 3);
  w->launch({});
  EXPECT_EQ(w->verify(), "");
  MeasureOptions o;
  o.name = "scale";
  bench::Workload* p = w.get();
  const Result r = measure(b, [p](const LaunchContext& c) { p->launch(c); },
                           host_fixed(Schedule::per_iter, CachePolicy::warm, 20), o);
  EXPECT_EQ(r.summary.n, 20);
  EXPECT_GT(r.value_us, 0.0);
  EXPECT_LE(r.summary.min_us, r.value_us);
  EXPECT_EQ(r.device.backend, BackendKind::host);
}

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("sysfs-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void add_cache(int index, const std::string& level, const std::string& type, const std::string& size) {
    const fs::path d = root_ / "sys/devices/system/cpu/cpu0/cache" / ("index" + std::to_string(index));
    fs::create_directories(d);
    std::ofstream(d / "level") << level << "\n";
    std::ofstream(d / "type") << type << "\n";
    std::ofstream(d / "size") << size << "\n";
  }
  fs::path root_;
};

TEST_F(FakeSysfs, PicksTheHighestLevelDataOrUnifiedCache) {
  add_cache(0, "1", "Data", "48K");
  add_cache(1, "1", "Instruction", "32K");
  add_cache(2, "2", "Unified", "2048K");
  add_cache(3, "3", "Unified", "32768K");
  const CacheSize c = last_level_cache(root_.string());
  EXPECT_EQ(c.bytes, 32u << 20);
  EXPECT_NE(c.source.find("L3 Unified"), std::string::npos) << c.source;
}

TEST_F(FakeSysfs, FallsBackAndSaysSoWhenUnknown) {
  fs::create_directories(root_);
  const CacheSize c = last_level_cache(root_.string());
  EXPECT_EQ(c.bytes, 32u << 20);
  EXPECT_EQ(c.source.rfind("fallback:", 0), 0u) << c.source;
  add_cache(0, "2", "Unified", "garbage");
  EXPECT_EQ(last_level_cache(root_.string()).source.rfind("fallback:", 0), 0u);
}

// Sets an environment variable for one test and puts the previous value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(HostDevice, TheEnvironmentSetsTheLastLevelCacheAndSaysSo) {
  {
    const ScopedEnv env("CALIBER_HOST_LLC_BYTES", "6M");
    const CacheSize c = last_level_cache();
    EXPECT_EQ(c.bytes, 6u << 20);
    EXPECT_EQ(c.source, "environment CALIBER_HOST_LLC_BYTES=6M (what the OS reports is not used)");
    EXPECT_EQ(describe_host().llc_bytes, 6u << 20);
  }
  {
    const ScopedEnv env("CALIBER_HOST_LLC_BYTES", "lots");
    EXPECT_THROW(last_level_cache(), ContractError);
  }
}

TEST(HostDevice, DescribesThisMachine) {
  const DeviceInfo d = describe_host();
  EXPECT_EQ(d.backend, BackendKind::host);
  EXPECT_FALSE(d.name.empty());
  EXPECT_FALSE(d.arch.empty());
  EXPECT_GT(d.multiprocessors, 0);
  EXPECT_GT(d.llc_bytes, 0u);
  EXPECT_FALSE(d.llc_source.empty());
}

}  // namespace
}  // namespace caliber::host
