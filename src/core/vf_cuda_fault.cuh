// SPDX-License-Identifier: BSD-3-Clause
// CUDA failure injection (src/core/vf_fault.h): the status of a kernel launch, and the error an
// injected runtime call returns. An injected launch failure is reported after the kernel was
// queued (its results are then not trusted); other injected calls are skipped.
#ifndef VF_CUDA_FAULT_CUH
#define VF_CUDA_FAULT_CUH

#include <cuda_runtime.h>

#include "core/vf_fault.h"

// Errors that do not poison the CUDA context, as a real failure of the same kind would not.
static inline int vf_cuda_launch_result(int injected) {
  cudaError_t e = cudaGetLastError();
  return injected ? (int)cudaErrorLaunchOutOfResources : (int)e;
}

// The status of the launch just made (and clears the runtime's last error).
#define VF_CUDA_LAUNCH_STATUS() vf_cuda_launch_result(VF_FAULT(VF_FAULT_CUDA))
// In a template a function-local static site would leave the section (each instantiation's
// copy gets a section of its own), so templates name a site declared at namespace scope.
#ifdef VF_FAULT_INJECTION
#define VF_CUDA_SITE(var)                                                       \
  static vf_fault_site var __attribute__((section("vf_fault_sites"), used)) = { \
      __FILE__ ":" VF_FAULT_STR(__LINE__), VF_FAULT_CUDA, 0, 0}
#define VF_CUDA_LAUNCH_STATUS_AT(var) vf_cuda_launch_result(vf_fault_hit(&(var)))
#else
#define VF_CUDA_SITE(var) static_assert(true, "no fault injection")
#define VF_CUDA_LAUNCH_STATUS_AT(var) vf_cuda_launch_result(0)
#endif
// In a runtime wrapper: returns an error instead of making the call when injected.
#define VF_CUDA_FAULT_RETURN(kind, error)    \
  do {                                       \
    if (VF_FAULT(kind)) return (int)(error); \
  } while (0)

#endif
