// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * viofront: the whole public API. */
#ifndef VIOFRONT_H
#define VIOFRONT_H

#include <viofront/vf_camera.h>
#include <viofront/vf_config.h>
#include <viofront/vf_context.h>
#include <viofront/vf_detector.h>
#include <viofront/vf_disparity_io.h>
#include <viofront/vf_euroc.h>
#include <viofront/vf_feature_set.h>
#include <viofront/vf_frontend.h>
#include <viofront/vf_image.h>
#include <viofront/vf_imu.h>
#include <viofront/vf_keypoint.h>
#include <viofront/vf_log.h>
#include <viofront/vf_png.h>
#include <viofront/vf_pyramid.h>
#include <viofront/vf_rectify.h>
#include <viofront/vf_rig.h>
#include <viofront/vf_rig_frontend.h>
#include <viofront/vf_sampler.h>
#include <viofront/vf_status.h>
#include <viofront/vf_stereo.h>
#include <viofront/vf_timer.h>
#include <viofront/vf_tracker.h>
#include <viofront/vf_version.h>

#endif
