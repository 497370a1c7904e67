// SPDX-License-Identifier: BSD-3-Clause
// What one packed or byte operation costs in SASS on each architecture (scripts/sass_counts.sh
// compiles this and subtracts the `copy` kernel's instructions from each kernel's): whether the
// target has the instruction or the compiler emulates it. Not part of the library.
#include <cuda_fp16.h>
#include <stdint.h>

#define VF_PROBE(name, expr)                                                                  \
  __global__ void probe_##name(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) { \
    const uint32_t a = in[0], b = in[1], c = in[2];                                           \
    out[0] = (expr);                                                                          \
  }

static __device__ __forceinline__ uint32_t hmin2_bits(uint32_t a, uint32_t b) {
  const __half2 r =
      __hmin2(*reinterpret_cast<const __half2*>(&a), *reinterpret_cast<const __half2*>(&b));
  return *reinterpret_cast<const uint32_t*>(&r);
}

static __device__ __forceinline__ uint32_t hadd2_bits(uint32_t a, uint32_t b) {
  const __half2 r =
      __hadd2(*reinterpret_cast<const __half2*>(&a), *reinterpret_cast<const __half2*>(&b));
  return *reinterpret_cast<const uint32_t*>(&r);
}

VF_PROBE(copy, a ^ b ^ c)  // the loads, the store and one LOP3, which each probe has too (its ^)
VF_PROBE(min_u32, min(a, b) ^ c)
VF_PROBE(vminu2, __vminu2(a, b) ^ c)
VF_PROBE(vminu4, __vminu4(a, b) ^ c)
VF_PROBE(vadd2, __vadd2(a, b) ^ c)
VF_PROBE(vaddus4, __vaddus4(a, b) ^ c)
VF_PROBE(vabsdiffu4, __vabsdiffu4(a, b) ^ c)
VF_PROBE(vsadu4, __vsadu4(a, b) ^ c)
VF_PROBE(byte_perm, __byte_perm(a, b, 0x5410) ^ c)
VF_PROBE(dp4a, (uint32_t)__dp4a(a, b, c) ^ a)
VF_PROBE(hmin2, hmin2_bits(a, b) ^ c)
VF_PROBE(hadd2, hadd2_bits(a, b) ^ c)
#if __CUDACC_VER_MAJOR__ >= 12
VF_PROBE(viaddmin_u16x2, __viaddmin_u16x2(a, b, c) ^ a)
VF_PROBE(vimin3_u16x2, __vimin3_u16x2(a, b, c) ^ a)
#endif
