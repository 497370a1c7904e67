// SPDX-License-Identifier: BSD-3-Clause
/* Status strings, version queries and the thread's last-error message. */
#include <viofront/viofront.h>

#include "vf_test.h"

int main(void) {
  for (int s = VF_OK; s < VF_STATUS_COUNT; ++s) {
    const char* text = vf_status_str((vf_status)s);
    CHECK(text != NULL && text[0] != '\0');
    CHECK(strcmp(text, "unknown status") != 0);
    for (int t = VF_OK; t < s; ++t) CHECK(strcmp(text, vf_status_str((vf_status)t)) != 0);
  }
  CHECK(strcmp(vf_status_str(VF_STATUS_COUNT), "unknown status") == 0);
  CHECK(strcmp(vf_status_str((vf_status)-5), "unknown status") == 0);
  CHECK(strcmp(vf_version(), VF_VERSION_STRING) == 0);
  CHECK(VF_VERSION_NUMBER == VF_VERSION_MAJOR * 10000 + VF_VERSION_MINOR * 100 + VF_VERSION_PATCH);
  CHECK(vf_built_with_cuda() == 0 || vf_built_with_cuda() == 1);
  /* The versioning rule: before 1.0 the ABI version is 0.MINOR, from 1.0 on MAJOR. */
  char abi[32];
  if (VF_VERSION_MAJOR == 0) {
    snprintf(abi, sizeof abi, "0.%d", VF_VERSION_MINOR);
  } else {
    snprintf(abi, sizeof abi, "%d", VF_VERSION_MAJOR);
  }
  CHECK(strcmp(VF_VERSION_SOVERSION, abi) == 0);
  CHECK(strcmp(vf_abi_version(), VF_VERSION_SOVERSION) == 0);

  /* A failing call leaves a message that names the call. */
  CHECK_FAILS(vf_context_create(NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "vf_context_create") != NULL);
  VF_TEST_END("test_status");
}
