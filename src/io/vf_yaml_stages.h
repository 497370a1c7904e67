// SPDX-License-Identifier: BSD-3-Clause
/* Schemas of the stage sections of a viofront config file (detector, tracker, stereo,
 * features, frontend), read into the frontend's configuration. */
#ifndef VF_YAML_STAGES_H
#define VF_YAML_STAGES_H

#include "io/vf_yaml.h"
#include "viofront/vf_frontend.h"

vf_status vf_yaml_read_detector(vf_yaml* y, yaml_node_t* n, vf_detector_config* out);
vf_status vf_yaml_read_tracker(vf_yaml* y, yaml_node_t* n, vf_tracker_config* out);
vf_status vf_yaml_read_stereo(vf_yaml* y, yaml_node_t* n, vf_stereo_config* out);
vf_status vf_yaml_read_features(vf_yaml* y, yaml_node_t* n, vf_feature_set_config* out);
vf_status vf_yaml_read_frontend(vf_yaml* y, yaml_node_t* n, vf_frontend_config* out);

#endif
