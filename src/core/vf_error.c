// SPDX-License-Identifier: BSD-3-Clause
/* Error recording: per-handle message plus a thread-local copy for calls without a handle. */
#include "core/vf_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char vf_thread_message[VF_ERROR_MESSAGE_MAX];

vf_status vf_fail(vf_error* err, vf_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(vf_thread_message, sizeof vf_thread_message, fmt, args);
  va_end(args);
  if (err != NULL) {
    err->status = status;
    memcpy(err->message, vf_thread_message, sizeof err->message);
  }
  return status;
}

vf_status vf_fail_from_thread(vf_error* err, vf_status status) {
  if (err != NULL) {
    err->status = status;
    memcpy(err->message, vf_thread_message, sizeof err->message);
  }
  return status;
}

const char* vf_last_error_message(void) { return vf_thread_message; }

void vf_thread_message_save(vf_saved_message* saved) {
  memcpy(saved->text, vf_thread_message, sizeof saved->text);
}

void vf_thread_message_restore(const vf_saved_message* saved) {
  memcpy(vf_thread_message, saved->text, sizeof vf_thread_message);
}
