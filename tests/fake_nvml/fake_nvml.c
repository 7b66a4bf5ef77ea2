/* A stand-in for libnvidia-ml.so.1 with scripted readings, so `caliber telemetry` is tested end
 * to end on machines without a GPU (CALIBER_NVML_LIBRARY points caliber at it). Reading k (one
 * reading = one nvmlDeviceGetClockInfo(SM) call) reports SM clock 1980 MHz, except every third
 * reading (k = 2, 5, 8, ...) which reports 1755 MHz under sw_power_cap. Device index 0 only. */
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_device* nvmlDevice_t;
typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

static struct fake_device {
  int unused;
} the_device;
static unsigned long long sm_reads;
static int last_throttled;

nvmlReturn_t nvmlInit_v2(void) { return 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(nvmlReturn_t r) { return r == 0 ? "Success" : "Not Found"; }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index != 0) return 6; /* NVML_ERROR_NOT_FOUND */
  *device = &the_device;
  return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  if (strncmp(uuid, "GPU-", 4) != 0) return 6; /* any GPU: the lead runs these tests on the H200 too */
  *device = &the_device;
  return 0;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int* mhz) {
  (void)device;
  if (type == 1) { /* SM */
    last_throttled = (sm_reads++ % 3) == 2;
    *mhz = last_throttled ? 1755 : 1980;
    return 0;
  }
  if (type == 2) { /* memory */
    *mhz = 3201;
    return 0;
  }
  return 3; /* NVML_ERROR_NOT_SUPPORTED */
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int* mhz) {
  (void)device;
  *mhz = type == 1 ? 1980 : 3201;
  return 0;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* c) {
  (void)device;
  if (sensor != 0) return 2;
  *c = 41;
  return 0;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* milliwatts) {
  (void)device;
  *milliwatts = 402500;
  return 0;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* u) {
  (void)device;
  u->gpu = 97;
  u->memory = 40;
  return 0;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  (void)device;
  *reasons = last_throttled ? 0x4ull : 0ull; /* sw_power_cap */
  return 0;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  strncpy(version, "0.0-fake", length);
  return 0;
}
