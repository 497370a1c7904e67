// SPDX-License-Identifier: BSD-3-Clause
// A figure per CUDA device (a kernel's capacity in blocks, say), asked once a device: a process
// with two different GPUs gets each one's own. Kept as one word a device, the top bit saying it
// is known; two threads asking at once store the same word.
#ifndef VF_DEVICE_MEMO_CUH
#define VF_DEVICE_MEMO_CUH

#include <cuda_runtime.h>

#include <atomic>

namespace vf_device_memo {

constexpr int kDevices = 64;
constexpr unsigned long long kKnown = 1ull << 63;

// The current device's word from query(dev) (63 bits), 0 when the device is unknown.
template <typename Q>
unsigned long long get(std::atomic<unsigned long long> (&words)[kDevices], Q query) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kDevices) {
    (void)cudaGetLastError();
    return 0;
  }
  unsigned long long w = words[dev].load(std::memory_order_relaxed);
  if (w == 0) {
    w = kKnown | query(dev);
    words[dev].store(w, std::memory_order_relaxed);
  }
  return w & ~kKnown;
}

}  // namespace vf_device_memo

#endif
