// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA backend (the .cu files in cuda/, extern "C"). Only compiled in with
 * VF_HAVE_CUDA. Functions return a cudaError_t as int (0 = success); vf_cuda_error_string names it.
 */
#ifndef VF_CUDA_RUNTIME_H
#define VF_CUDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* runtime (cuda/core/vf_cuda_runtime.cu) */
const char* vf_cuda_error_string(int code);
/* 1 when the code means there is no usable device (none, or no driver for this runtime). */
int vf_cuda_error_is_no_device(int code);
int vf_cuda_get_device_count(int* count);
int vf_cuda_set_device(int device);
int vf_cuda_device_properties(int device, char* name, size_t name_size, int* major, int* minor,
                              int* sms);
int vf_cuda_versions(int* runtime, int* driver);
/* A non-blocking stream; `urgent`: at the device's greatest priority, so that its blocks are
 * scheduled before those of ordinary streams (work on a frame's critical path). */
int vf_cuda_stream_create(void** stream, int urgent);
int vf_cuda_stream_destroy(void* stream);
int vf_cuda_stream_synchronize(void* stream);
/* cudaStreamSynchronize for destroy paths (never a fault-injection site). */
int vf_cuda_stream_drain(void* stream);
/* Waits for all work of every stream on the current device. */
int vf_cuda_device_synchronize(void);
int vf_cuda_malloc(void** ptr, size_t bytes);
int vf_cuda_free(void* ptr);
/* Page-locked host memory mapped into the device's address space: *host for the CPU, *device for
 * kernels, which then read and write host memory directly (no copy to launch or wait for). */
int vf_cuda_host_alloc_mapped(void** host, void** device, size_t bytes);
/* Page-locked host memory (not mapped): copies from it run asynchronously on the copy engines. */
int vf_cuda_host_alloc(void** host, size_t bytes);
int vf_cuda_host_free(void* ptr);
/* Page-locks [host, host + bytes), memory the caller allocated, in place (portable, as
 * vf_cuda_host_alloc's), or undoes it for the same `host`. */
int vf_cuda_host_register(void* host, size_t bytes);
int vf_cuda_host_unregister(void* host);
/* What a failed vf_cuda_host_register / vf_cuda_host_unregister means. */
enum {
  VF_CUDA_REGISTER_OTHER,
  VF_CUDA_REGISTER_NOMEM,       /* the system refused to lock more memory */
  VF_CUDA_REGISTER_UNSUPPORTED, /* the device cannot lock memory it did not allocate */
  VF_CUDA_REGISTER_TWICE,       /* the range is locked already */
  VF_CUDA_REGISTER_NOT_LOCKED   /* unregister of memory that was not registered */
};
int vf_cuda_register_error_kind(int code);
int vf_cuda_memset_async(void* ptr, int value, size_t bytes, void* stream);
/* 2-D copy between any host/device pointers (unified addressing decides the direction). */
int vf_cuda_copy_2d_async(void* dst, size_t dst_stride, const void* src, size_t src_stride,
                          size_t width_bytes, size_t height, void* stream);
int vf_cuda_copy_async(void* dst, const void* src, size_t bytes, void* stream);
int vf_cuda_event_create(void** event);
/* An event for ordering and waits only, without timing: recording it costs the host about a
 * fifth of a timing event's (docs/perf/tracker.md). */
int vf_cuda_event_create_untimed(void** event);
int vf_cuda_event_destroy(void* event);
int vf_cuda_event_record(void* event, void* stream);
int vf_cuda_event_elapsed_ms(void* start, void* stop, float* ms);
int vf_cuda_event_synchronize(void* event);
/* Later work on `stream` waits for `event` (no host wait). */
int vf_cuda_stream_wait_event(void* stream, void* event);

#ifdef __cplusplus
}
#endif
#endif
