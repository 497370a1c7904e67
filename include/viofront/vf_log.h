// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Log callback. The library never prints: messages go to the callback installed on a context,
 * and by default nowhere. */
#ifndef VF_LOG_H
#define VF_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

/** Severity of a log message, and the threshold of a context. */
typedef enum vf_log_level {
  VF_LOG_SILENT = 0, /**< as a threshold: nothing is passed on */
  VF_LOG_ERROR,      /**< a call failed */
  VF_LOG_WARN,       /**< something was skipped or is suspect (e.g. an unknown config key) */
  VF_LOG_INFO,       /**< progress worth knowing */
  VF_LOG_DEBUG       /**< details for debugging */
} vf_log_level;

/** Called with each message at or above the context's threshold; `message` has no newline. */
typedef void (*vf_log_fn)(vf_log_level level, const char* message, void* user);

#ifdef __cplusplus
}
#endif
#endif
