// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Result codes of every fallible call, and the last error message of the calling thread. */
#ifndef VF_STATUS_H
#define VF_STATUS_H

#include <viofront/vf_export.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a fallible call. */
typedef enum vf_status {
  VF_OK = 0,          /**< success */
  VF_ERR_INVALID_ARG, /**< NULL pointer, out-of-range parameter, bad size */
  VF_ERR_NOMEM,       /**< host allocation failed */
  VF_ERR_IO,          /**< file missing or unreadable/unwritable */
  VF_ERR_FORMAT,      /**< file content malformed (CSV, YAML, PNG) */
  VF_ERR_CUDA,        /**< CUDA runtime error (message holds CUDA's text) */
  VF_ERR_NO_DEVICE,   /**< CUDA backend asked for, but no device or no CUDA build */
  VF_ERR_UNSUPPORTED, /**< valid request this build or backend cannot serve */
  VF_ERR_STATE,       /**< call out of order (e.g. no previous frame yet) */
  VF_ERR_TIMESTAMP,   /**< timestamp repeats or goes backwards */
  VF_STATUS_COUNT     /**< number of statuses (not a status) */
} vf_status;

/** A short constant description of a status ("invalid argument"); never NULL. */
VF_API const char* vf_status_str(vf_status status);

/** The message of the last failure on the calling thread, from any viofront call, including
 * create functions that have no handle yet; "" when none. Valid until the next failing call
 * on this thread. Each handle also keeps its own last message (vf_<type>_last_error). */
VF_API const char* vf_last_error_message(void);

#ifdef __cplusplus
}
#endif
#endif
