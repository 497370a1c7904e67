// SPDX-License-Identifier: BSD-3-Clause
/* The library's one allocator and its fault injection (issue 17). Every host, pinned/mapped
 * host and device allocation, and every CUDA launch, stream, event and copy call, passes
 * VF_FAULT(kind) first. Built with VF_FAULT_INJECTION (CMake option of the same name, off by
 * default), each such place is a site: a static record in the section "vf_fault_sites", named
 * file:line, so that a test can list every site, arm the k-th call of some kinds to fail, and
 * check afterwards that each site did fail once. Without the option VF_FAULT is 0 and the
 * allocators are plain malloc/calloc/aligned_alloc. The control functions below are exported
 * for the tests (like vf_stereo_alt.h) and not part of the public API. */
#ifndef VF_FAULT_H
#define VF_FAULT_H

#include <stddef.h>
#include <stdlib.h>

#include "viofront/vf_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a site does; bits of the mask given to vf_fault_arm. */
enum {
  VF_FAULT_HOST = 1,   /* malloc, calloc, aligned_alloc */
  VF_FAULT_PINNED = 2, /* cudaHostAlloc, cudaMallocHost */
  VF_FAULT_DEVICE = 4, /* cudaMalloc */
  VF_FAULT_CUDA = 8,   /* kernel launch, stream, event, memset, copy */
  VF_FAULT_ALL = 15
};

typedef struct vf_fault_site {
  const char* name; /* "src/features/vf_tracker.c:171" */
  int kind;
  unsigned long calls;  /* calls counted while armed */
  unsigned long failed; /* injected failures */
} vf_fault_site;

/* 1 when the library was built with VF_FAULT_INJECTION. */
VF_API int vf_fault_available(void);
/* From now on count the calls of sites whose kind is in `kinds`; the k-th (1-based) fails once.
 * k = 0: count without failing. Resets the count and the fired flag. */
VF_API void vf_fault_arm(int kinds, unsigned long k);
/* Stops counting and failing. */
VF_API void vf_fault_disarm(void);
/* Calls counted since vf_fault_arm. */
VF_API unsigned long vf_fault_calls(void);
/* The site that failed since vf_fault_arm, or NULL. */
VF_API const vf_fault_site* vf_fault_fired(void);
/* Every site compiled into the library (0 without VF_FAULT_INJECTION). */
VF_API int vf_fault_site_count(void);
VF_API const vf_fault_site* vf_fault_site_at(int i);

/* Called by VF_FAULT: 1 when this call must fail. */
VF_API int vf_fault_hit(vf_fault_site* site);

#ifdef __cplusplus
}
#endif

#ifdef VF_FAULT_INJECTION
#define VF_FAULT_STR2(x) #x
#define VF_FAULT_STR(x) VF_FAULT_STR2(x)
/* A statement expression (GCC, clang, nvcc's host compiler) holding the site's static record. */
#define VF_FAULT(kind)                                                                 \
  __extension__({                                                                      \
    static vf_fault_site vf_site_ __attribute__((section("vf_fault_sites"), used)) = { \
        __FILE__ ":" VF_FAULT_STR(__LINE__), (kind), 0, 0};                            \
    vf_fault_hit(&vf_site_);                                                           \
  })
#else
#define VF_FAULT(kind) 0
#endif

/* The allocator: a NULL result is handled as the library's out-of-memory path. */
#define vf_malloc(bytes) (VF_FAULT(VF_FAULT_HOST) ? NULL : malloc(bytes))
#define vf_calloc(n, size) (VF_FAULT(VF_FAULT_HOST) ? NULL : calloc((n), (size)))
#define vf_aligned_alloc(align, bytes) \
  (VF_FAULT(VF_FAULT_HOST) ? NULL : aligned_alloc((align), (bytes)))

#endif
