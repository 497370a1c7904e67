// SPDX-License-Identifier: BSD-3-Clause
/* Consumer check: the installed headers compile and the installed library links and runs. */
#include <stdio.h>
#include <string.h>
#include <viofront/viofront.h>

int main(void) {
  if (strcmp(vf_version(), VF_VERSION_STRING) != 0) {
    fprintf(stderr, "header %s but library %s\n", VF_VERSION_STRING, vf_version());
    return 1;
  }
  if (strcmp(vf_abi_version(), VF_VERSION_SOVERSION) != 0) {
    fprintf(stderr, "header ABI %s but library ABI %s\n", VF_VERSION_SOVERSION, vf_abi_version());
    return 1;
  }
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  if (vf_context_create(&cc, &ctx) != VF_OK) return 1;
  vf_context_destroy(ctx);
  printf("consumer linked viofront %s (ABI %s)\n", vf_version(), vf_abi_version());
  return 0;
}
