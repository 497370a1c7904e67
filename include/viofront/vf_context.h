// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * A context: the chosen backend (CPU or CUDA), its CUDA device and stream, CPU threads and the
 * log callback. Stages (pyramid, detector, tracker, stereo, frontend) are created from one.
 * A context and the stages made from it are used by one thread at a time. */
#ifndef VF_CONTEXT_H
#define VF_CONTEXT_H

#include <viofront/vf_export.h>
#include <viofront/vf_log.h>
#include <viofront/vf_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a context runs its stages. */
typedef enum vf_backend {
  VF_BACKEND_AUTO = 0, /**< CUDA when a device is present, else CPU */
  VF_BACKEND_CPU,      /**< the CPU backend (the reference, and the no-GPU path) */
  VF_BACKEND_CUDA      /**< the CUDA backend; an error without a device */
} vf_backend;

/** How a context is made (vf_context_config_default() gives the defaults). */
typedef struct vf_context_config {
  vf_backend backend;     /**< default VF_BACKEND_AUTO */
  int cuda_device;        /**< device ordinal, default 0 */
  void* cuda_stream;      /**< a cudaStream_t of the caller's, or NULL: the context makes one */
  int cpu_threads;        /**< CPU backend worker threads; 0 = the cores the process may run on */
  vf_log_fn log_fn;       /**< NULL = silent */
  void* log_user;         /**< passed to log_fn */
  vf_log_level log_level; /**< threshold, default VF_LOG_WARN once log_fn is set */
} vf_context_config;

/** What a context runs on (vf_context_device_info()). */
typedef struct vf_device_info {
  char name[256];           /**< "NVIDIA H100 80GB HBM3", or "CPU" */
  int compute_major;        /**< 0 on the CPU backend */
  int compute_minor;        /**< 0 on the CPU backend */
  int multiprocessors;      /**< SMs, or CPU worker threads */
  int cuda_runtime_version; /**< e.g. 13000; 0 without CUDA */
  int cuda_driver_version;  /**< e.g. 13000; 0 without a driver */
} vf_device_info;

/** A context (opaque): backend, device, stream, threads and log callback. */
typedef struct vf_context vf_context;

/** The defaults: AUTO backend, device 0, own stream, all cores, no log callback. */
VF_API vf_context_config vf_context_config_default(void);

/** Number of usable CUDA devices (0 without CUDA or without a driver). Never fails. */
VF_API int vf_cuda_device_count(void);

/** Makes a context; with VF_BACKEND_CUDA and no device, VF_ERR_NO_DEVICE (no fallback). */
VF_API vf_status vf_context_create(const vf_context_config* config, vf_context** out);
/** Safe on NULL. Destroy the stages made from a context first. */
VF_API void vf_context_destroy(vf_context* ctx);

/** The backend actually in use (never AUTO). */
VF_API vf_backend vf_context_backend(const vf_context* ctx);
/** "auto", "cpu" or "cuda" ("unknown" for any other value). */
VF_API const char* vf_backend_name(vf_backend backend);
/** Fills `out` with the device the context runs on. */
VF_API vf_status vf_context_device_info(const vf_context* ctx, vf_device_info* out);
/** The CUDA stream all of this context's GPU work is queued on (NULL on the CPU backend). */
VF_API void* vf_context_cuda_stream(const vf_context* ctx);
/** Waits until all queued work is done. */
VF_API vf_status vf_context_synchronize(vf_context* ctx);
/** The message of this context's last failure; "" when none. */
VF_API const char* vf_context_last_error(const vf_context* ctx);

#ifdef __cplusplus
}
#endif
#endif
