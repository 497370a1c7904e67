// SPDX-License-Identifier: BSD-3-Clause
/* Per-handle error state: every handle embeds a vf_error; failures record their status and a
 * message there and in the calling thread's last-error slot. */
#ifndef VF_ERROR_H
#define VF_ERROR_H

#include "viofront/vf_status.h"

#define VF_ERROR_MESSAGE_MAX 512

typedef struct vf_error {
  vf_status status;
  char message[VF_ERROR_MESSAGE_MAX];
} vf_error;

/* Records a failure (err may be NULL: then only the thread slot is set) and returns status,
 * so that callers can write `return vf_fail(&h->err, VF_ERR_INVALID_ARG, "...", ...);`. */
vf_status vf_fail(vf_error* err, vf_status status, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies the thread's last message into a handle's error (after a helper failed). */
vf_status vf_fail_from_thread(vf_error* err, vf_status status);

/* Around an internal call whose failure the caller tolerates (e.g. no IMU for the gyroscope's
 * guess): the user's last-error message must still be the one of their last failing call. */
typedef struct vf_saved_message {
  char text[VF_ERROR_MESSAGE_MAX];
} vf_saved_message;
void vf_thread_message_save(vf_saved_message* saved);
void vf_thread_message_restore(const vf_saved_message* saved);

/* Checks a pointer argument; the message names it. */
#define VF_CHECK_ARG_NOT_NULL(err, ptr)                                            \
  do {                                                                             \
    if ((ptr) == NULL)                                                             \
      return vf_fail((err), VF_ERR_INVALID_ARG, "%s: %s is NULL", __func__, #ptr); \
  } while (0)

#endif
