// CALIBER_HOST_DEVICE: a function compiled for the host and, in the cuda backend's .cu files, for
// the device too (the input draws and element conversions both sides share, bit for bit).
#pragma once

#if defined(__CUDACC__)
#define CALIBER_HOST_DEVICE __host__ __device__
#else
#define CALIBER_HOST_DEVICE
#endif
