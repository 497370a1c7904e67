// SPDX-License-Identifier: BSD-3-Clause
/* Helpers of the bad-input suite (tests/badinput/test_badinput_*.c, ctest label badinput): a bad
 * call must give one specific status and a message that is its own (it names the call, argument or
 * field, given as `word`), in the thread slot and, for a handle, in the handle's slot. */
#ifndef BADINPUT_H
#define BADINPUT_H

#include <string.h>
#include <viofront/viofront.h>

#include "vf_test.h"

/* A message from an earlier call must not pass for this one's: the slot is overwritten first
 * by a failure whose text ("~: image is NULL") holds none of the words checked, which are
 * function, argument or field names. */
static inline void badinput_reset_message(void) { vf_image_check(NULL, "~"); }

#define CHECK_BAD(expr, expected, word)                                                   \
  do {                                                                                    \
    badinput_reset_message();                                                             \
    CHECK_FAILS(expr, expected);                                                          \
    if (strstr(vf_last_error_message(), (word)) == NULL) {                                \
      ++vf_test_failures;                                                                 \
      fprintf(stderr, "%s:%d: message \"%s\" does not name \"%s\"\n", __FILE__, __LINE__, \
              vf_last_error_message(), (word));                                           \
    }                                                                                     \
  } while (0)

/* The same for a call on a handle: its own last-error slot must hold the message too. */
#define CHECK_BAD_ON(expr, expected, word, handle_message) \
  do {                                                     \
    CHECK_BAD(expr, expected, word);                       \
    CHECK(strstr((handle_message), (word)) != NULL);       \
  } while (0)

#endif
