// SPDX-License-Identifier: BSD-3-Clause
#include "example_context.h"

vf_context_config example_context_config(const char* config_path) {
  vf_config file;
  if (config_path != NULL && vf_config_load(config_path, NULL, &file) == VF_OK) return file.context;
  return vf_context_config_default();
}
