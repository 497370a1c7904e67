// SPDX-License-Identifier: BSD-3-Clause
/* The frontend's configuration from a viofront YAML file (vf_config_load's sections). */
#include "core/vf_error.h"
#include "viofront/vf_config.h"
#include "viofront/vf_frontend.h"

vf_status vf_frontend_config_load(const char* path, const vf_context* log,
                                  vf_frontend_config* config, int* has_cameras) {
  VF_CHECK_ARG_NOT_NULL(NULL, path);
  VF_CHECK_ARG_NOT_NULL(NULL, config);
  vf_config c;
  vf_status s = vf_config_load(path, log, &c);
  if (s != VF_OK) return s;
  vf_camera cam0 = config->cam0, cam1 = config->cam1;
  *config = c.frontend;
  config->cam0 = c.camera_count == 2 ? c.cameras[0] : cam0;
  config->cam1 = c.camera_count == 2 ? c.cameras[1] : cam1;
  if (has_cameras != NULL) *has_cameras = c.camera_count == 2;
  config->rectify = c.rectify;
  config->pyramid_levels = c.pyramid.levels;
  return VF_OK;
}
