// SPDX-License-Identifier: BSD-3-Clause
/* Status strings and version queries. */
#include "viofront/vf_status.h"
#include "viofront/vf_version.h"

const char* vf_status_str(vf_status status) {
  switch (status) {
    case VF_OK: return "ok";
    case VF_ERR_INVALID_ARG: return "invalid argument";
    case VF_ERR_NOMEM: return "out of memory";
    case VF_ERR_IO: return "input/output error";
    case VF_ERR_FORMAT: return "malformed data";
    case VF_ERR_CUDA: return "CUDA error";
    case VF_ERR_NO_DEVICE: return "no CUDA device";
    case VF_ERR_UNSUPPORTED: return "unsupported";
    case VF_ERR_STATE: return "call out of order";
    case VF_ERR_TIMESTAMP: return "bad timestamp";
    case VF_STATUS_COUNT: break;
  }
  return "unknown status";
}

const char* vf_version(void) { return VF_VERSION_STRING; }

const char* vf_abi_version(void) { return VF_VERSION_SOVERSION; }

int vf_built_with_cuda(void) {
#ifdef VF_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}
