// SPDX-License-Identifier: BSD-3-Clause
// Thin C ABI over the CUDA runtime for the host code in src/ (which is plain C).
#include <cuda_runtime.h>
#include <stdio.h>

#include "core/vf_cuda_fault.cuh"
#include "core/vf_cuda_runtime.h"

extern "C" {

const char* vf_cuda_error_string(int code) { return cudaGetErrorString((cudaError_t)code); }

int vf_cuda_error_is_no_device(int code) {
  return code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver;
}

int vf_cuda_get_device_count(int* count) {
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) {
    *count = 0;
    cudaGetLastError();  // clear the sticky "no driver" error so later calls start clean
  }
  return (int)e;
}

int vf_cuda_set_device(int device) { return (int)cudaSetDevice(device); }

int vf_cuda_device_properties(int device, char* name, size_t name_size, int* major, int* minor,
                              int* sms) {
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return (int)e;
  snprintf(name, name_size, "%s", prop.name);
  *major = prop.major;
  *minor = prop.minor;
  *sms = prop.multiProcessorCount;
  return 0;
}

int vf_cuda_versions(int* runtime, int* driver) {
  cudaError_t e = cudaRuntimeGetVersion(runtime);
  if (e == cudaSuccess) e = cudaDriverGetVersion(driver);
  return (int)e;
}

int vf_cuda_stream_create(void** stream, int urgent) {
  cudaStream_t s = nullptr;
  *stream = nullptr;
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorMemoryAllocation);
  // Non-blocking: a context's stream must not wait for, nor hold up, work on the legacy default
  // stream, or every context of the device would serialize behind any one of them.
  cudaError_t e;
  if (urgent) {
    int least = 0, greatest = 0;
    e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest);
  } else {
    e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  }
  *stream = s;
  return (int)e;
}

int vf_cuda_stream_destroy(void* stream) { return (int)cudaStreamDestroy((cudaStream_t)stream); }

// The wait of a destroy, which cannot report: no fault-injection site (a failure injected there
// would be swallowed, and the failure walk would count it as unreported).
int vf_cuda_stream_drain(void* stream) { return (int)cudaStreamSynchronize((cudaStream_t)stream); }

// An injected failure of a wait still waits: the host must not touch buffers in flight.
int vf_cuda_stream_synchronize(void* stream) {
  cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
  return VF_FAULT(VF_FAULT_CUDA) ? (int)cudaErrorInvalidValue : (int)e;
}

int vf_cuda_device_synchronize(void) { return (int)cudaDeviceSynchronize(); }

int vf_cuda_malloc(void** ptr, size_t bytes) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_DEVICE, cudaErrorMemoryAllocation);
  return (int)cudaMalloc(ptr, bytes);
}

int vf_cuda_free(void* ptr) { return (int)cudaFree(ptr); }

int vf_cuda_host_alloc_mapped(void** host, void** device, size_t bytes) {
  *host = *device = NULL;
  VF_CUDA_FAULT_RETURN(VF_FAULT_PINNED, cudaErrorMemoryAllocation);
  int rc = (int)cudaHostAlloc(host, bytes, cudaHostAllocMapped);
  if (rc == 0) rc = (int)cudaHostGetDevicePointer(device, *host, 0);
  return rc;
}

int vf_cuda_host_alloc(void** host, size_t bytes) {
  *host = NULL;
  VF_CUDA_FAULT_RETURN(VF_FAULT_PINNED, cudaErrorMemoryAllocation);
  // Portable: page-locked for every device, so a second GPU's contexts copy from it asynchronously.
  int rc = (int)cudaHostAlloc(host, bytes, cudaHostAllocPortable);
  if (rc != 0) cudaGetLastError();  // a refused allocation must not be reported by a later launch
  return rc;
}

int vf_cuda_host_free(void* ptr) { return (int)cudaFreeHost(ptr); }

int vf_cuda_host_register(void* host, size_t bytes) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_PINNED, cudaErrorMemoryAllocation);
  int rc = (int)cudaHostRegister(host, bytes, cudaHostRegisterPortable);
  if (rc != 0) cudaGetLastError();  // a refused lock must not be reported by a later launch
  return rc;
}

int vf_cuda_host_unregister(void* host) {
  int rc = (int)cudaHostUnregister(host);
  if (rc != 0) cudaGetLastError();
  return rc;
}

int vf_cuda_register_error_kind(int code) {
  switch ((cudaError_t)code) {
    case cudaErrorMemoryAllocation: return VF_CUDA_REGISTER_NOMEM;
    case cudaErrorNotSupported: return VF_CUDA_REGISTER_UNSUPPORTED;
    case cudaErrorHostMemoryAlreadyRegistered: return VF_CUDA_REGISTER_TWICE;
    case cudaErrorHostMemoryNotRegistered: return VF_CUDA_REGISTER_NOT_LOCKED;
    default: return VF_CUDA_REGISTER_OTHER;
  }
}

int vf_cuda_memset_async(void* ptr, int value, size_t bytes, void* stream) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorInvalidValue);
  return (int)cudaMemsetAsync(ptr, value, bytes, (cudaStream_t)stream);
}

int vf_cuda_copy_2d_async(void* dst, size_t dst_stride, const void* src, size_t src_stride,
                          size_t width_bytes, size_t height, void* stream) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorInvalidValue);
  return (int)cudaMemcpy2DAsync(dst, dst_stride, src, src_stride, width_bytes, height,
                                cudaMemcpyDefault, (cudaStream_t)stream);
}

int vf_cuda_copy_async(void* dst, const void* src, size_t bytes, void* stream) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorInvalidValue);
  return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream);
}

int vf_cuda_event_create(void** event) {
  cudaEvent_t e = nullptr;
  *event = nullptr;
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorMemoryAllocation);
  cudaError_t rc = cudaEventCreate(&e);
  *event = e;
  return (int)rc;
}

int vf_cuda_event_create_untimed(void** event) {
  cudaEvent_t e = nullptr;
  *event = nullptr;
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorMemoryAllocation);
  cudaError_t rc = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  *event = e;
  return (int)rc;
}

int vf_cuda_event_destroy(void* event) { return (int)cudaEventDestroy((cudaEvent_t)event); }

int vf_cuda_event_record(void* event, void* stream) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorInvalidValue);
  return (int)cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
}

int vf_cuda_event_elapsed_ms(void* start, void* stop, float* ms) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorInvalidValue);
  return (int)cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)stop);
}

int vf_cuda_event_synchronize(void* event) {
  cudaError_t e = cudaEventSynchronize((cudaEvent_t)event);
  return VF_FAULT(VF_FAULT_CUDA) ? (int)cudaErrorInvalidValue : (int)e;
}

int vf_cuda_stream_wait_event(void* stream, void* event) {
  VF_CUDA_FAULT_RETURN(VF_FAULT_CUDA, cudaErrorInvalidValue);
  return (int)cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0);
}

}  // extern "C"
