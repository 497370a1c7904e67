// SPDX-License-Identifier: BSD-3-Clause
/* AVX2 on x86-64, asked of the CPU at run time: outside the SSE2 baseline the library is built
 * for, so code that uses it is compiled for it alone (VF_AVX2_TARGET) and runs only where
 * vf_cpu_avx2() says so. VF_AVX2 is defined where such code can be built: x86-64 with GCC or
 * clang, and not with VF_SIMD4_PORTABLE (plain C everywhere) or VF_SIMD8_OFF (CMake option
 * VF_SIMD_AVX2=OFF). No FMA: the AVX2 paths give the SSE2 paths' bits. */
#ifndef VF_CPU_AVX2_H
#define VF_CPU_AVX2_H

#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(VF_SIMD4_PORTABLE) && !defined(VF_SIMD8_OFF)
#define VF_AVX2 1
#include <immintrin.h>

#define VF_AVX2_TARGET __attribute__((target("avx2")))

/* Whether the CPU (and the OS, which must save the 256-bit registers) runs AVX2: libgcc's cpu
 * model, filled once; its init is a test of a flag after the first call. */
static inline int vf_cpu_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}
#endif

#endif
